import type { JWK } from "jose";
import { type SnapshotPayload, snapshotAudience, verifySnapshot } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;
let eastAgent: ControlPlaneClient;
/** What cluster-east's agent verifies snapshots against: tenant, cluster and the incarnation it registered with. */
let eastAudience: string;
let jwks: { keys: JWK[] };

const policy = (timeout: string) =>
  trafficPolicy("reviews-timeout", {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "reviews" }] } }],
    policy: { requestTimeout: timeout },
  });

async function fetchVerified(client: ControlPlaneClient, last = 0): Promise<SnapshotPayload> {
  const answer = await client.snapshot();
  if (!answer.changed || !answer.jws) throw new Error("no snapshot");
  return verifySnapshot(answer.jws, { trustedKeys: jwks.keys, audience: eastAudience, lastGeneration: last, now: new Date() });
}

const head = (cluster: string) => cp.store.snapshots.head("pipeline", cluster, true);
const statusOf = async (name: string) =>
  ((await (await cp.request("GET", `/v1/trafficpolicies/${name}`, { token: admin })).json()) as { status: Record<string, unknown> }).status;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("pipeline");
  const east = await registeredAgent(cp, admin, "pipeline", "cluster-east");
  eastAgent = east.client;
  eastAudience = snapshotAudience("pipeline", "cluster-east", east.incarnation);
  jwks = (await (await cp.request("GET", "/.well-known/jwks.json")).json()) as { keys: JWK[] };
  await cp.work();
});
afterAll(() => cp.stop());

describe("write → job → signed snapshot → status", () => {
  it("publishes a verified snapshot per cluster from discovery and policies, and maps agent failures to FAILED", async () => {
    expect((await eastAgent.discovery(discoveryOf("istio-bookinfo", "cluster-east"))).changed).toBe(true);
    expect((await eastAgent.discovery(discoveryOf("istio-bookinfo", "cluster-east"))).changed).toBe(false);
    await cp.work();
    const first = (await head("cluster-east"))?.snapshot;
    expect(first?.generation).toBe(1);

    expect((await cp.request("POST", "/v1/trafficpolicies", { token: admin, body: policy("5s") })).status).toBe(201);
    expect(await cp.work()).toEqual({ handled: 1, failed: 0 });
    const payload = await fetchVerified(eastAgent, 1);
    expect(payload.generation).toBe(2);
    expect(payload.iss).toBe(cp.url);
    const vs = payload.objects.find((o) => o.kind === "VirtualService" && o.metadata.name === "reviews") as
      | { spec: { http: { timeout?: string }[] } }
      | undefined;
    expect(vs?.spec.http.some((r) => r.timeout === "5s")).toBe(true);
    const accepted = await statusOf("reviews-timeout");
    expect(accepted).toMatchObject({ state: "ACCEPTED", observedGeneration: 1, clusters: { "cluster-east": { generation: 2, applied: false } } });

    // Unchanged input: no new generation, even when the job is run again.
    await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", { token: admin, body: policy("5s") });
    expect(await cp.jobs()).toEqual([]);
    expect((await head("cluster-east"))?.snapshot?.generation).toBe(2);

    // The agent applied it, but the cluster rejected the VirtualService.
    await eastAgent.status({
      generation: 2,
      results: [
        {
          apiVersion: "networking.istio.io/v1",
          kind: "VirtualService",
          namespace: "bookinfo",
          name: "reviews",
          state: "failed",
          error: "admission webhook denied: bad timeout",
        },
      ],
    });
    await cp.work();
    const failed = await statusOf("reviews-timeout");
    expect(failed).toMatchObject({
      state: "FAILED",
      clusters: { "cluster-east": { generation: 2, applied: false, errors: ["VirtualService bookinfo/reviews: admission webhook denied: bad timeout"] } },
    });

    await eastAgent.status({
      generation: 2,
      results: [{ apiVersion: "networking.istio.io/v1", kind: "VirtualService", namespace: "bookinfo", name: "reviews", state: "applied" }],
    });
    await cp.work();
    expect(await statusOf("reviews-timeout")).toMatchObject({ state: "ACCEPTED", clusters: { "cluster-east": { generation: 2, applied: true } } });

    const view = (await (await cp.request("GET", "/v1/clusters/cluster-east/snapshot", { token: admin })).json()) as {
      generation: number;
      appliedGeneration: number;
      inSync: boolean;
      objects: unknown[];
    };
    expect(view).toMatchObject({ generation: 2, appliedGeneration: 2, inSync: true });
    expect(view.objects).toEqual(payload.objects);
    // Sync state alone, for health views: the same answer without reading the snapshot's body.
    const state = (await (await cp.request("GET", "/v1/clusters/cluster-east/snapshot?objects=false", { token: admin })).json()) as Record<string, unknown>;
    expect(state).toEqual({ ...view, objects: [], certificates: [] });
    const bad = await cp.request("GET", "/v1/clusters/cluster-east/snapshot?objects=no", { token: admin });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("objects");
  });

  it("answers an unchanged poll with 304", async () => {
    const current = (await head("cluster-east"))?.snapshot as { generation: number; hash: string };
    expect(await eastAgent.snapshot(current)).toEqual({ changed: false });
    const stale = await eastAgent.snapshot({ generation: current.generation - 1, hash: current.hash });
    expect(stale.changed).toBe(true);
  });
});

describe("at-least-once jobs", () => {
  it("a redelivered or duplicated job and an out-of-order older revision change nothing", async () => {
    await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", { token: admin, body: policy("7s") });
    const [job] = await cp.jobs();
    const latest = (job as { body: { revision: number } }).body.revision;
    const { SendMessageCommand } = await import("@aws-sdk/client-sqs");
    for (const [revision, dedup] of [
      [latest, "a"],
      [latest, "b"],
      [1, "c"],
    ] as const) {
      await cp.sqs.send(
        new SendMessageCommand({
          QueueUrl: cp.queueUrl,
          MessageBody: JSON.stringify({ tenantId: "pipeline", revision }),
          MessageGroupId: "pipeline",
          MessageDeduplicationId: `dup-${dedup}-${revision}`,
        }),
      );
    }
    const before = (await head("cluster-east"))?.snapshot?.generation as number;
    expect(await cp.work()).toEqual({ handled: 3, failed: 0 });
    expect((await head("cluster-east"))?.snapshot?.generation).toBe(before + 1);
    expect((await fetchVerified(eastAgent)).objects.some((o) => JSON.stringify(o).includes('"timeout":"7s"'))).toBe(true);
  });

  it("a crash between the snapshot and the status writes re-runs cleanly: one generation, statuses written", async () => {
    await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", { token: admin, body: policy("9s") });
    const before = (await head("cluster-east"))?.snapshot?.generation as number;
    const real = cp.worker.store.resources.writeStatus.bind(cp.worker.store.resources);
    cp.worker.store.resources.writeStatus = async () => {
      throw new Error("worker crashed");
    };
    try {
      expect(await cp.work()).toEqual({ handled: 1, failed: 1 });
    } finally {
      cp.worker.store.resources.writeStatus = real;
    }
    expect((await head("cluster-east"))?.snapshot?.generation).toBe(before + 1);
    expect(await statusOf("reviews-timeout")).toMatchObject({ observedGeneration: 2 });
    expect(await cp.workRedelivered()).toEqual({ handled: 1, failed: 0 });
    expect((await head("cluster-east"))?.snapshot?.generation).toBe(before + 1);
    expect(await statusOf("reviews-timeout")).toMatchObject({ observedGeneration: 3, state: "ACCEPTED" });
  });

  it("a malformed job fails (and so ends in the DLQ) without touching anything", async () => {
    const { SendMessageCommand } = await import("@aws-sdk/client-sqs");
    await cp.sqs.send(
      new SendMessageCommand({ QueueUrl: cp.queueUrl, MessageBody: '{"tenantId": 5}', MessageGroupId: "other", MessageDeduplicationId: "poison" }),
    );
    expect(await cp.work()).toEqual({ handled: 1, failed: 1 });
    expect(cp.logs.some((l) => l.includes("translate job failed") && l.includes("malformed translate job"))).toBe(true);
    const { PurgeQueueCommand } = await import("@aws-sdk/client-sqs");
    await cp.sqs.send(new PurgeQueueCommand({ QueueUrl: cp.queueUrl }));
  });
});

describe("plan", () => {
  it("shows per-cluster changes and statuses without storing anything", async () => {
    const before = await cp.store.tenants.get("pipeline");
    const headBefore = await head("cluster-east");
    const res = await cp.request("POST", "/v1/plan", {
      token: admin,
      body: {
        documents: [
          policy("1s"),
          trafficPolicy("ratings-retries", {
            destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "ratings" }] } }],
            policy: { retries: { attempts: 2 } },
          }),
          trafficPolicy("dangling", {
            destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "nope" }] } }],
            policy: { retries: { attempts: 2 } },
          }),
        ],
      },
    });
    expect(res.status).toBe(200);
    type Obj = { kind: string; metadata: { name: string }; spec: unknown };
    const plan = (await res.json()) as {
      clusters: Record<string, { added: Obj[]; changed: Obj[]; previous: Obj[]; removed: unknown[] }>;
      statuses: Record<string, { state: string; errors?: string[] }>;
    };
    const east = plan.clusters["cluster-east"];
    expect(east?.changed.map((o) => `${o.kind}/${o.metadata.name}`)).toContain("VirtualService/reviews");
    // Each changed object beside its form in the cluster's latest snapshot, same kind and name, other spec.
    expect(east?.previous.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(east?.changed.map((o) => `${o.kind}/${o.metadata.name}`));
    const at = east?.changed.findIndex((o) => o.metadata.name === "reviews" && o.kind === "VirtualService") as number;
    expect(east?.previous[at]?.spec).not.toEqual(east?.changed[at]?.spec);
    expect(east?.added.map((o) => `${o.kind}/${o.metadata.name}`)).toContain("VirtualService/ratings");
    expect(east?.removed).toEqual([]);
    expect(plan.statuses["TrafficPolicy/dangling"]?.state).toBe("INVALID");
    expect(plan.statuses["TrafficPolicy/ratings-retries"]?.state).toBe("ACCEPTED");
    expect((await cp.store.tenants.get("pipeline")).revision).toBe(before.revision);
    expect(await head("cluster-east")).toEqual(headBefore);
    expect((await cp.request("GET", "/v1/trafficpolicies/ratings-retries", { token: admin })).status).toBe(404);
    expect(await cp.jobs()).toEqual([]);
  });
});

describe("signing keys", () => {
  it("rotation publishes the new key first and keeps the old one, so both generations verify", async () => {
    const old = await fetchVerified(eastAgent);
    const oldJws = (await eastAgent.snapshot()) as { jws: string };
    const newKid = cp.signer.rotate();
    const rotated = (await (await cp.request("GET", "/.well-known/jwks.json")).json()) as { keys: JWK[] };
    expect(rotated.keys.map((k) => k.kid)).toEqual([newKid, jwks.keys[0]?.kid]);
    await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", { token: admin, body: policy("11s") });
    await cp.work();
    const answer = (await eastAgent.snapshot()) as { jws: string };
    expect(JSON.parse(Buffer.from(answer.jws.split(".")[0] as string, "base64url").toString()).kid).toBe(newKid);
    const fresh = await verifySnapshot(answer.jws, { trustedKeys: rotated.keys, audience: eastAudience, lastGeneration: old.generation, now: new Date() });
    expect(fresh.generation).toBe(old.generation + 1);
    await expect(
      verifySnapshot(oldJws.jws, { trustedKeys: rotated.keys, audience: eastAudience, lastGeneration: old.generation, now: new Date() }),
    ).resolves.toBeDefined();
    // An agent that pinned only the old key refuses what the new key signed: it fails static.
    await expect(verifySnapshot(answer.jws, { trustedKeys: jwks.keys, audience: eastAudience, lastGeneration: 0, now: new Date() })).rejects.toMatchObject({
      reason: "unknown-key",
    });
    jwks = rotated;
  });

  it("re-publishes an unchanged snapshot with a fresh signature before it expires", async () => {
    const before = (await head("cluster-east"))?.snapshot;
    cp.clock.now = new Date(Date.now() + 6 * 86_400_000);
    try {
      await cp.store.agents.recordReport("pipeline", "cluster-east", { generation: before?.generation ?? 0, results: [] }, `nudge-${Date.now()}`, cp.clock.now);
      await cp.request("POST", "/v1/apply", {
        token: admin,
        body: {
          documents: [
            trafficPolicy("nudge", {
              policy: { requestTimeout: "3s" },
              destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "web", name: "none" }] } }],
            }),
          ],
        },
      });
      await cp.work();
      const after = (await head("cluster-east"))?.snapshot;
      expect(after?.hash).toBe(before?.hash);
      expect(after?.generation).toBe((before?.generation ?? 0) + 1);
      expect(after?.exp).toBeGreaterThan((before?.exp ?? 0) + 5 * 86_400);
    } finally {
      cp.clock.now = new Date();
    }
  });
});
