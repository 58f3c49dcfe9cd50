/**
 * Propagation: from an API write to a new signed snapshot readable for each of CLUSTERS clusters
 * (100 by default), through the real pipeline (API → DynamoDB transaction → SQS FIFO → worker →
 * signed snapshot per cluster). Each cluster has an agent that reported its discovery through
 * `POST /v1/agent/discovery`, as agents do; each write changes a policy that selects a service in
 * every cluster. A cluster counts as reached when its head names a new generation; that snapshot is
 * then fetched as its agent fetches it, verified, and must carry the written timeout.
 */
import type { JWK } from "jose";
import { type SnapshotPayload, snapshotAudience, verifySnapshot } from "@meshplane/core";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { discoveryOf } from "../support/agents";
import { benchPlane, expectStatus, percentile } from "./_harness";

const CLUSTERS = Number(process.env.CLUSTERS ?? 100);
const WRITES = Number(process.env.WRITES ?? 10);
/** How long one write may take to reach every cluster. */
const DEADLINE_MS = Number(process.env.DEADLINE_MS ?? 120_000);

const policy = (timeout: string) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "reviews-timeout" },
  spec: { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"], labels: { app: "reviews" } } }], policy: { requestTimeout: timeout } },
});

/** Whether a snapshot routes `reviews` with `timeout`. */
const carries = (payload: SnapshotPayload, timeout: string) =>
  payload.objects.some((o) => o.kind === "VirtualService" && ((o.spec as { http?: { timeout?: string }[] }).http ?? []).some((r) => r.timeout === timeout));

const plane = await benchPlane({ worker: true });
try {
  const admin = await plane.tenant("bench");
  const names = Array.from({ length: CLUSTERS }, (_, i) => `cluster-${String(i).padStart(3, "0")}`);
  const agents = new Map<string, { client: ControlPlaneClient; audience: string }>();
  for (const name of names) {
    const { client, incarnation } = await plane.agent(admin, "bench", name);
    agents.set(name, { client, audience: snapshotAudience("bench", name, incarnation) });
    const { changed } = await client.discovery(discoveryOf("istio-bookinfo", name));
    if (!changed) throw new Error(`${name}: its first discovery report was not taken as a change`);
  }
  const jwks = (await (await expectStatus(fetch(`${plane.url}/.well-known/jwks.json`), 200, "GET /.well-known/jwks.json")).json()) as { keys: JWK[] };
  // The discovery reports' jobs first: a write is timed on a control plane with nothing queued.
  const settling = Date.now();
  for (;;) {
    const tenant = await plane.store.tenants.get("bench");
    if (tenant.translatedRevision >= tenant.revision) break;
    if (Date.now() - settling > DEADLINE_MS)
      throw new Error(`revision ${tenant.revision} of the discovery reports never translated (at ${tenant.translatedRevision})`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const generations = async () => new Map([...(await plane.store.snapshots.heads("bench", names))].map(([c, h]) => [c, h.snapshot?.generation ?? 0]));
  /**
   * Waits until every cluster's snapshot carries `timeout`, pushing into `samples` the time from
   * `started` to the head that carried it.
   */
  const waitAll = async (timeout: string, started: number, samples: number[]) => {
    const seen = await generations();
    const pending = new Set(names);
    while (pending.size > 0) {
      const now = await generations();
      const at = performance.now();
      for (const c of pending) {
        const generation = now.get(c) ?? 0;
        if (generation <= (seen.get(c) ?? 0)) continue;
        seen.set(c, generation);
        const agent = agents.get(c) as { client: ControlPlaneClient; audience: string };
        const answer = await agent.client.snapshot();
        if (!answer.changed || answer.jws === undefined) throw new Error(`${c}: generation ${generation} published, but its agent was answered no snapshot`);
        const payload = await verifySnapshot(answer.jws, { trustedKeys: jwks.keys, audience: agent.audience, lastGeneration: generation, now: new Date() });
        if (!carries(payload, timeout)) continue; // a generation of something else: keep waiting
        samples.push(at - started);
        pending.delete(c);
      }
      if (performance.now() - started > DEADLINE_MS)
        throw new Error(`${pending.size} of ${CLUSTERS} clusters never got the requestTimeout ${timeout}: ${[...pending].slice(0, 5).join(", ")}`);
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 10));
    }
  };
  // The first write is the warm-up.
  let t0 = performance.now();
  await expectStatus(plane.request("POST", "/v1/trafficpolicies", admin, policy("1s")), 201, "POST /v1/trafficpolicies");
  await waitAll("1s", t0, []);
  const samples: number[] = [];
  const perWrite: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const timeout = `${i + 2}s`;
    t0 = performance.now();
    await expectStatus(
      plane.request("PUT", "/v1/trafficpolicies/reviews-timeout", admin, policy(timeout)),
      200,
      `write ${i}: PUT /v1/trafficpolicies/reviews-timeout`,
    );
    const start = samples.length;
    await waitAll(timeout, t0, samples);
    perWrite.push(Math.max(...samples.slice(start)));
  }
  samples.sort((a, b) => a - b);
  const figures = {
    bench: "propagation",
    clusters: CLUSTERS,
    writes: WRITES,
    p50_ms: Math.round(percentile(samples, 50)),
    p99_ms: Math.round(percentile(samples, 99)),
    max_ms: Math.round(samples[samples.length - 1] as number),
    last_cluster_per_write_ms: Math.round(perWrite.reduce((a, b) => a + b, 0) / perWrite.length),
  };
  console.log(`${WRITES} writes × ${CLUSTERS} clusters: p50 ${figures.p50_ms} ms, p99 ${figures.p99_ms} ms (DynamoDB Local, SQS emulator, 1 s long poll)`);
  console.log(JSON.stringify(figures));
} finally {
  await plane.stop();
}
