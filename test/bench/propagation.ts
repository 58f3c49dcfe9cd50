/**
 * Propagation: from an API write to a new signed snapshot readable for each of 100 clusters, through
 * the real pipeline (API → DynamoDB transaction → SQS FIFO → worker → signed snapshot per cluster).
 * Each write changes a policy that selects a service in every cluster.
 */
import { discover, groupClusterObjects } from "@meshplane/core";
import { parseAllDocuments } from "yaml";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FIXTURES } from "../support/agents";
import { benchPlane, percentile } from "./_harness";

const CLUSTERS = Number(process.env.CLUSTERS ?? 100);
const WRITES = Number(process.env.WRITES ?? 10);

const policy = (timeout: string) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "reviews-timeout" },
  spec: { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"], labels: { app: "reviews" } } }], policy: { requestTimeout: timeout } },
});

const plane = await benchPlane({ worker: true });
try {
  const admin = ((await (await plane.request("POST", "/v1/tenants", plane.operatorToken, { name: "bench" })).json()) as { adminToken: string }).adminToken;
  const objects = parseAllDocuments(readFileSync(join(FIXTURES, "istio-bookinfo.yaml"), "utf8")).map((d) => d.toJS() as unknown).filter(Boolean);
  const names = Array.from({ length: CLUSTERS }, (_, i) => `cluster-${String(i).padStart(3, "0")}`);
  for (const name of names) {
    await plane.request("POST", "/v1/clusters", admin, { name });
    await plane.store.discovered.replace("bench", name, discover(groupClusterObjects(name, objects)));
  }
  const generations = async () => new Map([...(await plane.store.snapshots.heads("bench", names))].map(([c, h]) => [c, h.snapshot?.generation ?? 0]));
  const waitAll = async (before: Map<string, number>, started: number, samples: number[]) => {
    const pending = new Set(names);
    while (pending.size > 0) {
      const now = await generations();
      for (const c of pending) {
        if ((now.get(c) ?? 0) > (before.get(c) ?? 0)) {
          samples.push(performance.now() - started);
          pending.delete(c);
        }
      }
      if (performance.now() - started > 120_000) throw new Error(`${pending.size} clusters never got the change`);
      if (pending.size > 0) await new Promise((r) => setTimeout(r, 10));
    }
  };
  // First write publishes every cluster's first snapshot; it is the warm-up.
  let before = await generations();
  let t0 = performance.now();
  await plane.request("POST", "/v1/trafficpolicies", admin, policy("1s"));
  await waitAll(before, t0, []);
  const samples: number[] = [];
  const perWrite: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    before = await generations();
    t0 = performance.now();
    const res = await plane.request("PUT", "/v1/trafficpolicies/reviews-timeout", admin, policy(`${i + 2}s`));
    if (res.status !== 200) throw new Error(`write ${i}: ${res.status}`);
    const start = samples.length;
    await waitAll(before, t0, samples);
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
