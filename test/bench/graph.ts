/**
 * `GET /v1/graph` at EDGES edges (10,000 by default), through the local control plane's route: a
 * tenant's clusters registered and their discovery reported through the agent protocol into DynamoDB
 * Local, each cluster's traffic of a 5-minute window posted by its agent (`POST /v1/agent/metrics`,
 * gzip) into the metrics store on the SQS/S3 emulator and written by the ingest's own handler; then
 * the first page (`?window=5m&limit=LIMIT`, the tenant's token) read RUNS times, and every page once,
 * checked: all edges exactly once, in order.
 *
 * A report names at most 1,000 edges (docs/observability.md#limits), so 10,000 edges of one minute
 * come from 10 clusters: max(2, EDGES / 1,000) of them, a third of each cluster's calls coming from
 * the cluster before it. The route's time is split into its parts, each timed alone over the same
 * data: the buckets read from S3, the discovered world read from DynamoDB, and the assembly (rows
 * resolved, summed, sorted, one page cut and written as JSON) — `assembly_p99_ms`, to tell a slower
 * assembly from slower reads.
 */
import { gzipSync } from "node:zlib";
import { type GraphView, METRICS_LIMITS, type MetricsEdge, type MetricsReport } from "@meshplane/core";
import { startMetricsLocal } from "../../functions/local/metrics-local";
import { startSqsLocal } from "../../functions/local/sqs-local";
import { graphPage, loadWorld, resolveRows } from "../../functions/metrics/read/index";
import { createLogger } from "../../functions/shared/logger";
import { istioMesh } from "../support/ambient-discovery";
import { benchPlane, expectStatus, percentile } from "./_harness";

const EDGES = Number(process.env.EDGES ?? 10_000);
const LIMIT = Number(process.env.LIMIT ?? 500);
const RUNS = Number(process.env.RUNS ?? 20);
const MINUTES = 5;
const TENANT = "bench";
const CLUSTERS = Array.from({ length: Math.max(2, Math.ceil(EDGES / METRICS_LIMITS.edges)) }, (_, c) => `cluster-${c}`);
const SERVICES = Math.max(3, Math.floor(EDGES / 4 / CLUSTERS.length));
const ns = (n: number) => `ns-${n % 50}`;
const istioId = (cluster: string) => `id-${cluster}`;
const meshOf = (cluster: string) => `istiod-${cluster}`;

/**
 * The edges into cluster `t` (its agent's server view): edge e from workload caller-⌊e/3⌋ of the
 * cluster before it when e is a multiple of 3, of its own otherwise, to service svc-(e mod SERVICES).
 */
function edgesInto(t: number): MetricsEdge[] {
  const count = Math.floor(EDGES / CLUSTERS.length) + (t < EDGES % CLUSTERS.length ? 1 : 0);
  const target = CLUSTERS[t] as string;
  return Array.from({ length: count }, (_, e) => {
    const source = e % 3 === 0 ? (CLUSTERS[(t + CLUSTERS.length - 1) % CLUSTERS.length] as string) : target;
    const n = Math.floor(e / 3);
    const s = e % SERVICES;
    return {
      source: { cluster: istioId(source), namespace: ns(n), workload: `caller-${n}` },
      destination: { cluster: istioId(target), namespace: ns(s), service: `svc-${s}` },
      protocol: "http",
      view: "server",
    };
  });
}

/** What cluster `cluster`'s agent discovers: its mesh (with an east-west gateway), the callers and the services. */
function discoveryOf(cluster: string, callers: number) {
  const mesh = meshOf(cluster);
  const eastWest = { kind: "eastwest", name: "istio-eastwestgateway", namespace: "istio-system", selector: { istio: "eastwestgateway" } };
  const gateway = { ...eastWest, tlsPortName: "tls", externalPort: 15443, containerPort: 15443, addresses: [{ ip: "192.0.2.1" }] };
  const workloads = Array.from({ length: callers }, (_, n) => ({
    kind: "Workload",
    metadata: { name: `caller-${n}-${ns(n)}-${cluster}-deployment`, cluster },
    spec: { kind: "Deployment", name: `caller-${n}`, namespace: ns(n), cluster, mesh, labels: { app: `caller-${n}` }, serviceAccount: `caller-${n}` },
  }));
  const destinations = Array.from({ length: SERVICES }, (_, s) => ({
    kind: "Destination",
    metadata: { name: `svc-${s}-${ns(s)}-${cluster}`, cluster },
    spec: {
      name: `svc-${s}`,
      namespace: ns(s),
      cluster,
      mesh,
      labels: { app: `svc-${s}` },
      selector: { app: `svc-${s}` },
      ports: [{ name: "http", port: 8080, protocol: "TCP", targetPort: 8080 }],
      subsets: {},
      endpoints: [],
      workloads: [],
    },
  }));
  return { meshes: [istioMesh(mesh, cluster, { gateways: [gateway] })], workloads, destinations, hash: `bench-${cluster}` };
}

/** Cluster `t`'s report of `minutes`: every edge every minute, a 5xx every 11th request, latency in one bucket. */
function reportOf(t: number, edges: MetricsEdge[], minutes: number[]): MetricsReport {
  const cluster = CLUSTERS[t] as string;
  return {
    cluster,
    generatedAt: Date.now(),
    istioClusterId: istioId(cluster),
    health: { state: "ok" },
    edges,
    minutes: minutes.map((start, m) => ({
      start,
      rows: [...edges.keys()].map((edge) => {
        const i = edge + t + m;
        const failures = i % 11;
        const latency = Array.from({ length: 20 }, (_, b) => (b === 5 + (i % 4) ? 60 + (i % 7) : 0));
        return { edge, requests: 60 + (i % 7), failures, non2xx: failures, errors5xx: failures, latency };
      }),
    })),
  };
}

const ms = (started: number) => performance.now() - started;
const figures = (samples: number[]) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: Math.round(percentile(sorted, 50)), p99: Math.round(percentile(sorted, 99)) };
};

// The metrics store on an emulator of its own, as the lab starts it (test/lab/run-lab.ts).
const metricsSqs = await startSqsLocal();
const metrics = await startMetricsLocal({ endpoint: metricsSqs.endpoint, region: "us-east-1", suffix: "bench", log: createLogger({}, () => undefined) });
const plane = await benchPlane({ metrics: metrics.api });
try {
  const admin = await plane.tenant(TENANT);

  const seeded = performance.now();
  const edges = CLUSTERS.map((_, t) => edgesInto(t));
  const callers = Math.ceil(Math.max(...edges.map((e) => e.length)) / 3);
  const agents = await Promise.all(
    CLUSTERS.map(async (cluster) => {
      const { client } = await plane.agent(admin, TENANT, cluster);
      await client.discovery(discoveryOf(cluster, callers) as never);
      return client;
    }),
  );
  // The minutes of the window and the current one, so that a read in the next minute still has five.
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const minutes = Array.from({ length: MINUTES + 1 }, (_, m) => minute - MINUTES * 60 + m * 60);
  let reportBytes = 0;
  for (const [t, agent] of agents.entries()) {
    const body = gzipSync(JSON.stringify(reportOf(t, edges[t] as MetricsEdge[], minutes)));
    reportBytes = Math.max(reportBytes, body.byteLength);
    await agent.postMetrics(body);
  }
  await metrics.drain();
  const seedMs = ms(seeded);

  const path = `/v1/graph?window=${MINUTES}m&limit=${LIMIT}`;
  const pageOf = async (after?: string) => {
    const res = await expectStatus(
      plane.request("GET", after === undefined ? path : `${path}&continue=${encodeURIComponent(after)}`, admin),
      200,
      `GET ${path}`,
    );
    const text = await res.text();
    return { text, view: JSON.parse(text) as GraphView };
  };
  await pageOf(); // the API loads its S3 client with the first metrics read: not a page's time
  const routeMs: number[] = [];
  let bytes = 0;
  let first: GraphView | undefined;
  for (let r = 0; r < RUNS; r++) {
    const started = performance.now();
    const p = await pageOf();
    routeMs.push(ms(started));
    bytes = Buffer.byteLength(p.text);
    first = p.view;
  }

  // Every page once, checked: each edge exactly once, in the graph's order.
  const seen: string[] = [];
  let next: string | undefined;
  let pages = 0;
  do {
    const p = await pageOf(next);
    pages++;
    for (const e of p.view.edges) seen.push(`${e.source}\u0000${e.target}`);
    next = p.view.metadata?.continue;
  } while (next !== undefined);
  if (seen.length !== EDGES || new Set(seen).size !== EDGES)
    throw new Error(`${seen.length} edges over ${pages} pages, ${new Set(seen).size} distinct; expected ${EDGES}`);
  if (seen.some((e, i) => i > 0 && (seen[i - 1] as string) >= e)) throw new Error("edges out of order across pages");

  // The route's parts, each alone over the first page's window.
  const from = Date.parse((first as GraphView).from) / 1000;
  const to = Date.parse((first as GraphView).to) / 1000;
  const s3Ms: number[] = [];
  const dynamoMs: number[] = [];
  const assemblyMs: number[] = [];
  let rows = 0;
  for (let r = 0; r < RUNS; r++) {
    let started = performance.now();
    const buckets = await metrics.api.buckets(TENANT, from, to);
    s3Ms.push(ms(started));
    started = performance.now();
    const world = await loadWorld(plane.store, TENANT);
    dynamoMs.push(ms(started));
    started = performance.now();
    const resolved = resolveRows(buckets);
    JSON.stringify(graphPage({ world, rows: resolved.rows, other: resolved.other, from, to, filter: {}, limit: LIMIT }).view);
    assemblyMs.push(ms(started));
    rows = buckets.reduce((n, b) => n + b.rows.length, 0);
  }

  const route = figures(routeMs);
  console.log(`${EDGES} edges in ${CLUSTERS.length} clusters seeded in ${(seedMs / 1000).toFixed(1)} s; GET ${path}: p50 ${route.p50} ms, p99 ${route.p99} ms`);
  console.log(
    JSON.stringify({
      bench: "graph",
      edges: EDGES,
      clusters: CLUSTERS.length,
      minutes: MINUTES,
      rows,
      limit: LIMIT,
      pages,
      report_kib: Math.round(reportBytes / 1024),
      page_p50_ms: route.p50,
      page_p99_ms: route.p99,
      page_kib: Math.round(bytes / 1024),
      s3_buckets_p50_ms: figures(s3Ms).p50,
      dynamodb_world_p50_ms: figures(dynamoMs).p50,
      assembly_p50_ms: figures(assemblyMs).p50,
      assembly_p99_ms: figures(assemblyMs).p99,
    }),
  );
} finally {
  await plane.stop();
  await metrics.stop();
  await metricsSqs.stop();
}
