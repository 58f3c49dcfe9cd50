import { type StoredResource, type TranslateInput, resourceKeyOf } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { validateDocuments } from "../../functions/intent/documents";
import { PlanInputCache, plannedInput } from "../../functions/translation/plan";
import { loadTranslateInput } from "../../functions/translation/input";
import type { WriteResult } from "../../functions/store/index";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

const TENANT = "plan";
let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
  await cp.tenant(TENANT);
});
afterAll(() => cp?.stop());

const withMeta = <T extends { metadata: object }>(doc: T, metadata: Record<string, unknown>): T => ({ ...doc, metadata: { ...doc.metadata, ...metadata } });
/** The user resources of an input, by kind and name (a write lists them by name; translation sorts them itself). */
const resources = (input: TranslateInput): StoredResource[] =>
  [...input.virtualMeshes, ...input.trafficPolicies, ...input.accessPolicies].sort((a, b) => resourceKeyOf(a).localeCompare(resourceKeyOf(b)));

/**
 * A stored resource as /v1/plan sees it before the write: what only the write knows — the revision
 * it gets, and the uid of a resource it creates — stands as "planned".
 */
function asPlanned(stored: StoredResource, results: readonly WriteResult[]): StoredResource {
  const action = results.find((r) => r.resource.kind === stored.kind && r.resource.metadata.name === stored.metadata.name)?.action;
  if (action === undefined || action === "unchanged") return stored;
  return { ...stored, metadata: { ...stored.metadata, resourceVersion: "planned", ...(action === "created" ? { uid: "planned" } : {}) } };
}

describe("/v1/plan and /v1/apply", () => {
  it("lay the same documents over the tenant as the same stored versions", async () => {
    const before = validateDocuments([
      withMeta(trafficPolicy("annotated"), { labels: { team: "a" }, annotations: { owner: "alice" } }),
      withMeta(trafficPolicy("untouched"), { annotations: { owner: "bob" } }),
      trafficPolicy("respec"),
    ]);
    await cp.store.resources.write(TENANT, before, "2031-01-01T00:00:00.000Z");

    const documents = [
      withMeta(trafficPolicy("annotated"), { labels: { team: "a" }, annotations: { owner: "carol" } }), // metadata only
      withMeta(trafficPolicy("untouched"), { annotations: { owner: "bob" } }), // as stored
      trafficPolicy("respec", { policy: { requestTimeout: "9s" } }), // spec
      withMeta(trafficPolicy("fresh"), { labels: {}, annotations: { owner: "dan" } }), // new, an empty label map
      accessPolicy("reads"),
    ];
    const writes = validateDocuments(documents);
    const now = "2031-02-01T00:00:00.000Z";
    const planned = await plannedInput(new PlanInputCache(cp.store), TENANT, writes, now);
    const results = await cp.store.resources.write(TENANT, writes, now);
    const stored = await loadTranslateInput(cp.store, TENANT);

    expect(results.map((r) => `${r.resource.metadata.name} ${r.action}`)).toEqual([
      "annotated configured",
      "untouched unchanged",
      "respec configured",
      "fresh created",
      "reads created",
    ]);
    expect(resources(planned)).toEqual(resources(stored).map((r) => asPlanned(r, results)));
    expect(planned.trafficPolicies.find((r) => r.metadata.name === "annotated")?.metadata.annotations).toEqual({ owner: "carol" });
  });

  it("plan with the CAs as they are and what agents hold: an unrelated change takes no shared-trust object away", async () => {
    const admin = await cp.tenant("plan-trust");
    const { client } = await registeredAgent(cp, admin, "plan-trust", "cluster-east");
    await client.discovery(discoveryOf("istio-bookinfo", "cluster-east") as never);
    const vm = virtualMesh("trust", {
      meshes: [{ name: "istiod-istio--system-cluster-east" }],
      mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} } } },
    });
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [vm] } })).status).toBe(200);
    await cp.work();
    // The job made the CA and published STRICT mTLS for the mesh.
    const snapshot = (await (await cp.request("GET", "/v1/clusters/cluster-east/snapshot", { token: admin })).json()) as { objects: { kind: string }[] };
    expect(snapshot.objects.map((o) => o.kind)).toContain("PeerAuthentication");
    const plan = (await (await cp.request("POST", "/v1/plan", { token: admin, body: { documents: [trafficPolicy("unrelated")] } })).json()) as {
      clusters: Record<string, { added: { kind: string }[]; removed: unknown[] }>;
      statuses: Record<string, unknown>;
    };
    expect(plan.clusters["cluster-east"]?.removed).toEqual([]);
    expect(new Set(plan.clusters["cluster-east"]?.added.map((o) => o.kind))).toEqual(new Set(["VirtualService"]));
    expect(JSON.stringify(plan.statuses["VirtualMesh/trust"])).not.toContain("is being created");
  });
});
