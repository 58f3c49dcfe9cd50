/**
 * `GET /v1/graph` at EDGES edges (10,000 by default): the read side's assembly as the route runs it —
 * buckets resolved (Istio cluster IDs mapped, each cross-cluster call kept once), the window summed per
 * edge, nodes looked up in the discovered world, sorted, one page of LIMIT edges cut and its JSON
 * written — over the buckets of a 5-minute window from two clusters, a third of the calls crossing
 * from one to the other. The buckets come from memory (what the metrics store's reader answers),
 * not from S3, and the discovered world is built once, not read from DynamoDB: the figures are the
 * assembly's. Every page is checked: all edges exactly once, in order.
 */
import { type Destination, type MetricsEdge, type Signals, emptySignals } from "@meshplane/core";
import { graphPage, resolveRows, worldOf } from "../../functions/metrics/read/index";
import type { StoredBucket } from "../../functions/metrics/stored";
import { percentile } from "./_harness";

const EDGES = Number(process.env.EDGES ?? 10_000);
const LIMIT = Number(process.env.LIMIT ?? 500);
const RUNS = Number(process.env.RUNS ?? 20);
const MINUTES = 5;
const T0 = Math.floor(Date.now() / 3_600_000) * 3600;

const signals = (i: number): Signals => ({
  ...emptySignals(),
  requests: 60 + (i % 7),
  failures: i % 11,
  non2xx: i % 11,
  errors5xx: i % 11,
  latency: Array.from({ length: 20 }, (_, b) => (b === 5 + (i % 4) ? 60 + (i % 7) : 0)),
});

// EDGES callers each calling one of EDGES / 4 services; a third of them from the other cluster.
const services = Math.max(1, Math.floor(EDGES / 4));
const destinations: Destination[] = [];
const edges: { cluster: string; edge: MetricsEdge }[] = [];
for (let s = 0; s < services; s++) {
  const cluster = s % 2 === 0 ? "east" : "west";
  destinations.push({
    kind: "Destination",
    metadata: { name: `svc-${s}-ns-${s % 50}-${cluster}`, cluster },
    spec: {
      name: `svc-${s}`,
      namespace: `ns-${s % 50}`,
      cluster,
      mesh: `istiod-${cluster}`,
      labels: {},
      selector: {},
      ports: [],
      subsets: {},
      endpoints: [],
      workloads: [],
    },
  });
}
for (let i = 0; i < EDGES; i++) {
  const s = i % services;
  const target = s % 2 === 0 ? "east" : "west";
  const source = i % 3 === 0 ? (target === "east" ? "west" : "east") : target;
  edges.push({
    cluster: target,
    edge: {
      source: { cluster: `id-${source}`, namespace: `ns-${i % 50}`, workload: `caller-${i}` },
      destination: { cluster: `id-${target}`, namespace: `ns-${s % 50}`, service: `svc-${s}` },
      protocol: "http",
      view: "server",
    },
  });
}
const buckets: StoredBucket[] = [];
for (let m = 0; m < MINUTES; m++) {
  for (const cluster of ["east", "west"]) {
    buckets.push({
      start: T0 + m * 60,
      seconds: 60,
      cluster,
      istioClusterId: `id-${cluster}`,
      rows: edges.flatMap((e, i) => (e.cluster === cluster ? [{ edge: e.edge, signals: signals(i + m) }] : [])),
    });
  }
}
const world = worldOf({ clusters: ["east", "west"], meshes: [], workloads: [], destinations, virtualMeshes: [] });

/** One page as the route answers it: assembled and written as JSON. */
function page(after?: string) {
  const { rows, other } = resolveRows(buckets);
  const out = graphPage({ world, rows, other, from: T0, to: T0 + MINUTES * 60, filter: {}, limit: LIMIT, ...(after === undefined ? {} : { after }) });
  return { ...out, json: JSON.stringify(out.view) };
}

const firstPageMs: number[] = [];
let bytes = 0;
for (let r = 0; r < RUNS; r++) {
  const started = performance.now();
  bytes = page().json.length;
  firstPageMs.push(performance.now() - started);
}
// Every page once, checked: each edge exactly once, in the graph's order.
const seen: string[] = [];
let after: string | undefined;
let pages = 0;
do {
  const p = page(after);
  pages++;
  for (const e of p.view.edges) seen.push(`${e.source}\u0000${e.target}`);
  after = p.next;
} while (after !== undefined);
if (seen.length !== EDGES || new Set(seen).size !== EDGES)
  throw new Error(`${seen.length} edges over ${pages} pages, ${new Set(seen).size} distinct; expected ${EDGES}`);
if (seen.some((e, i) => i > 0 && (seen[i - 1] as string) >= e)) throw new Error("edges out of order across pages");

const sorted = [...firstPageMs].sort((a, b) => a - b);
console.log(
  JSON.stringify({
    bench: "graph",
    edges: EDGES,
    minutes: MINUTES,
    rows: buckets.reduce((n, b) => n + b.rows.length, 0),
    limit: LIMIT,
    pages,
    page_p50_ms: Math.round(percentile(sorted, 50)),
    page_p99_ms: Math.round(percentile(sorted, 99)),
    page_kib: Math.round(bytes / 1024),
  }),
);
