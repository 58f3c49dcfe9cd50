import type { KubeObject, StatusReport } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { ApiError } from "@meshplane/core/http-client";
import type { SnapshotAnswer } from "../control-plane/client";
import { type Call, DAY, FakeControlPlane, FakeKube, NOW, SCOPE, fakeDeps, snapshotSigner } from "../testing/fakes";
import { SyncLoop } from "./sync-loop";

const ID = "spiffe://cluster.local/ns/istio-system/sa/istiod";
const labels = { "app.kubernetes.io/managed-by": "meshplane", "meshplane.dev/tenant": SCOPE.tenant, "meshplane.dev/cluster": SCOPE.cluster };
const VS: KubeObject = {
  apiVersion: "networking.istio.io/v1",
  kind: "VirtualService",
  metadata: { name: "reviews", namespace: "shop", labels, annotations: {} },
  spec: { hosts: ["reviews"] },
};

// Which stage made a call: the certificate stage reads and writes cacerts, the restart stage lists and
// patches istiod then marks cacerts, apply applies the snapshot's objects, prune lists the generated kinds.
const stageOf = (c: Call) =>
  c.kind === "Deployment" || (c.verb === "patch" && c.kind === "Secret")
    ? "restarts"
    : c.kind === "Secret"
      ? "certificates"
      : c.verb === "apply"
        ? "apply"
        : "prune";

describe("the sync loop", () => {
  it("runs the stages in the documented order", async () => {
    const cp = await FakeControlPlane.create({ mesh: ID });
    const kube = new FakeKube();
    kube.deployment("istio-system", "istiod");
    const { jwk, sign } = await snapshotSigner();
    const jws = await sign(2, [VS], [cp.directive("mesh", { secretNamespace: "istio-system" })]);
    const seen: string[] = [];
    const client = {
      csr: cp.csr.bind(cp),
      snapshot: async () => ({ changed: true as const, jws, etag: "x" }),
      status: async () => (seen.push("report"), { changed: true }),
    };
    kube.fail = (c) => (seen.push(stageOf(c)), undefined);
    await new SyncLoop(fakeDeps(kube, client, { trustedKeys: [jwk] })).cycle();
    // Verify makes no call: that apply ran at all says the snapshot verified first.
    expect(seen.filter((stage, i) => stage !== seen[i - 1])).toEqual(["apply", "prune", "certificates", "restarts", "report"]);
  });

  it("applies a snapshot, issues its certificates and reports both; later reports only what changed", async () => {
    const cp = await FakeControlPlane.create({ mesh: ID });
    const kube = new FakeKube();
    kube.deployment("istio-system", "istiod");
    const { jwk, sign } = await snapshotSigner();
    const answers: SnapshotAnswer[] = [];
    const reports: StatusReport[] = [];
    const client = {
      csr: cp.csr.bind(cp),
      snapshot: async () => answers.shift() ?? { changed: false as const },
      status: async (r: StatusReport) => (reports.push(r), { changed: true }),
    };
    let now = NOW;
    const deps = fakeDeps(kube, client, { trustedKeys: [jwk], resyncIntervalMs: 0, now: () => now });
    const loop = new SyncLoop(deps);
    const directive = cp.directive("mesh", { secretNamespace: "istio-system" });
    answers.push({ changed: true, jws: await sign(2, [VS], [directive]), etag: "x" });

    await loop.cycle();
    expect(kube.writes().map((c) => `${c.verb} ${c.kind} ${c.namespace}/${c.name}`)).toEqual([
      "apply VirtualService shop/reviews",
      "apply Secret istio-system/cacerts",
      "patch Deployment istio-system/istiod",
      "patch Secret istio-system/cacerts",
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      generation: 2,
      results: [{ kind: "VirtualService", name: "reviews", state: "applied" }],
      certificates: [{ mesh: "mesh", state: "issued", issuer: directive.issuer }],
    });
    expect(deps.state.appliedGeneration).toBe(2);

    await loop.cycle();
    expect(reports).toHaveLength(1);

    cp.refuse.add("mesh");
    now = new Date(NOW.getTime() + 340 * DAY);
    await loop.cycle();
    expect(reports).toHaveLength(2);
    expect(reports[1]).toMatchObject({
      generation: 2,
      results: [{ name: "reviews", state: "applied" }],
      certificates: [{ mesh: "mesh", state: "failed", error: expect.stringContaining("403") }],
    });
    expect(loop.synced).toBe(true);
  });

  it("reports a failure a later resync no longer meets, so the control plane does not keep showing it", async () => {
    const kube = new FakeKube();
    const { jwk, sign } = await snapshotSigner();
    const answers: SnapshotAnswer[] = [{ changed: true, jws: await sign(3, [VS], []), etag: "x" }];
    const reports: StatusReport[] = [];
    const client = {
      csr: async () => ({ certificateChain: "" }),
      snapshot: async () => answers.shift() ?? { changed: false as const },
      status: async (r: StatusReport) => (reports.push(r), { changed: true }),
    };
    const loop = new SyncLoop(fakeDeps(kube, client as never, { trustedKeys: [jwk], resyncIntervalMs: 0 }));
    // The apiserver is still starting: listing for the prune fails once.
    let failing = true;
    kube.fail = (call) => (failing && call.verb === "list" ? new Error("storage is (re)initializing") : undefined);
    await loop.cycle();
    expect(reports.at(-1)?.results.some((r) => r.state === "failed")).toBe(true);
    failing = false;
    await loop.cycle();
    expect(reports).toHaveLength(2);
    expect(reports[1]?.results.filter((r) => r.state === "failed")).toEqual([]);
    expect(reports[1]?.results).toContainEqual(expect.objectContaining({ name: "reviews", state: "applied" }));
    // Nothing new after that: no more reports.
    await loop.cycle();
    expect(reports).toHaveLength(2);
  });

  it("over its budget (429), waits at least as long as the control plane's Retry-After, and backs off otherwise", async () => {
    const kube = new FakeKube();
    let error: Error = new ApiError(429, "GET /v1/agent/snapshot: 429", [], { retryAfterSeconds: 45 });
    const client = { csr: async () => ({ certificateChain: "" }), snapshot: async () => Promise.reject(error), status: async () => ({ changed: false }) };
    const loop = new SyncLoop(fakeDeps(kube, client as never, { pollIntervalMs: 15_000 }));
    for (let i = 0; i < 3; i++) expect(await loop.cycle()).toBeGreaterThanOrEqual(45_000);
    error = new ApiError(503, "GET /v1/agent/snapshot: 503");
    expect(await loop.cycle()).toBeLessThanOrEqual(60_000);
    expect(kube.writes()).toEqual([]);
  });
});
