/**
 * The agent's metrics reader at EDGES edges (500 by default) against a real Prometheus
 * (test/support/prometheus) holding what sidecars would leave for them: every edge seen by its
 * client and its server proxy, two response codes, the 20 latency buckets and the size sums, a sample
 * every 15 s. The reader reads MINUTES minutes (5: one report at the default `metrics.sendEvery`)
 * the way the agent does — three queries a minute, the answers parsed and turned into signals — then
 * builds, checks and gzips the report. Figures: the CPU the agent's process spends per minute read
 * (the queries' own cost is Prometheus's, not counted), as millicores over the minute; the extra RSS
 * (the highest RSS while reading and reporting, over the RSS before, after a GC); the report's bytes
 * per cluster-minute as sent (gzip). Every minute's edges are checked against what was written.
 */
import { MINUTE_S, metricsReport } from "@meshplane/core";
import { gunzipSync } from "node:zlib";
import { type MinuteCounts, readMinute } from "../../packages/agent/src/metrics/minute";
import { PROMETHEUS_ANSWER_LIMITS } from "../../packages/agent/src/metrics/options";
import { packReports } from "../../packages/agent/src/metrics/pack";
import { PrometheusClient } from "../../packages/agent/src/metrics/prometheus";
import type { Series } from "../support/prometheus/remote-write";
import { startPrometheus } from "../support/prometheus/server";

const EDGES = Number(process.env.EDGES ?? 500);
const MINUTES = Number(process.env.MINUTES ?? 5);
const STEP_S = 15;
const LE = [
  "0.5",
  "1.0",
  "5.0",
  "10.0",
  "25.0",
  "50.0",
  "100.0",
  "250.0",
  "500.0",
  "1000.0",
  "2500.0",
  "5000.0",
  "10000.0",
  "30000.0",
  "60000.0",
  "300000.0",
  "600000.0",
  "1.8e+06",
  "3.6e+06",
  "+Inf",
];
const BOUNDS = LE.map((le) => (le === "+Inf" ? Number.POSITIVE_INFINITY : Number(le)));

/** Edge `i`'s requests per minute, by code; latencies spread over buckets 4–7 (25–250 ms). */
const perMinute = (i: number) => ({ "200": 40 + (i % 30), "503": i % 5 });
const latencyOf = (ms: number) => [20, 40, 80, 200][ms % 4] as number;

function seriesOf(base: number): Series[] {
  const out: Series[] = [];
  const steps = (MINUTES + 1) * (60 / STEP_S) + 1;
  for (let i = 0; i < EDGES; i++) {
    const edge = {
      source_cluster: "east",
      source_workload_namespace: `ns-${i % 40}`,
      source_workload: `caller-${i}`,
      source_canonical_service: `caller-${i}`,
      source_principal: `spiffe://cluster.local/ns/ns-${i % 40}/sa/caller-${i}`,
      destination_cluster: "east",
      destination_service_namespace: `ns-${i % 40}`,
      destination_service_name: `svc-${i % 125}`,
      destination_service: `svc-${i % 125}.ns-${i % 40}.svc.cluster.local`,
      destination_workload: `svc-${i % 125}-v1`,
      destination_workload_namespace: `ns-${i % 40}`,
      request_protocol: "http",
      response_flags: "-",
      job: "kubernetes-pods",
    };
    for (const reporter of ["source", "destination"]) {
      for (const [code, rate] of Object.entries(perMinute(i))) {
        const labels = { ...edge, reporter, response_code: code, pod: `${reporter === "source" ? edge.source_workload : edge.destination_workload}-0` };
        const at = (k: number) => base * 1000 + k * STEP_S * 1000;
        const count = (k: number) => Math.floor((k * STEP_S * rate) / 60) + 1000;
        const samples = (f: (k: number) => number) => Array.from({ length: steps }, (_, k) => [at(k), f(k)] as const);
        out.push({ labels: { __name__: "istio_requests_total", ...labels }, samples: samples(count) });
        out.push({ labels: { __name__: "istio_request_bytes_sum", ...labels }, samples: samples((k) => count(k) * 300) });
        out.push({ labels: { __name__: "istio_response_bytes_sum", ...labels }, samples: samples((k) => count(k) * 2400) });
        LE.forEach((le, b) => {
          const inBucket = latencyOf(i) <= (BOUNDS[b] as number) ? 1 : 0;
          out.push({ labels: { __name__: "istio_request_duration_milliseconds_bucket", ...labels, le }, samples: samples((k) => count(k) * inBucket) });
        });
      }
    }
  }
  return out;
}

const rssMiB = () => process.memoryUsage.rss() / 1024 / 1024;
const gc = () => (globalThis as { gc?: () => void }).gc?.();

const now = Math.floor(Date.now() / 1000);
const base = now - (now % 60) - (MINUTES + 2) * 60;
const server = await startPrometheus();
try {
  const written = await server.write(seriesOf(base));
  const client = new PrometheusClient({ url: server.url, auth: { type: "none" }, timeoutMs: 60_000, ...PROMETHEUS_ANSWER_LIMITS });
  // A read and a report first, as the agent's first: its code is loaded and compiled before the figures start.
  packReports({ cluster: "cluster-1", istioClusterId: "east", health: { state: "ok" }, maxEdges: 1000, now: Date.now() }, [
    await readMinute(client, base, new Set()),
  ]);
  gc();
  const before = rssMiB();
  let peak = before;
  // Sampled between the reader's steps too; a cheap read (process.memoryUsage.rss), seldom, so that
  // watching costs next to nothing of the CPU measured.
  const watch = setInterval(() => (peak = Math.max(peak, rssMiB())), 50);
  const cpu = process.cpuUsage();
  const minutes: MinuteCounts[] = [];
  for (let m = 1; m <= MINUTES; m++) {
    const minute = await readMinute(client, base + m * MINUTE_S, new Set());
    peak = Math.max(peak, rssMiB());
    minutes.push(minute);
  }
  const packs = packReports({ cluster: "cluster-1", istioClusterId: "east", health: { state: "ok" }, maxEdges: 1000, now: Date.now() }, minutes);
  peak = Math.max(peak, rssMiB());
  const used = process.cpuUsage(cpu);
  clearInterval(watch);

  for (const minute of minutes) {
    if (minute.edges.size !== EDGES) throw new Error(`minute ${minute.start}: ${minute.edges.size} edges, not ${EDGES}`);
    for (const { edge, signals } of minute.edges.values()) {
      const i = Number(edge.source.workload.slice("caller-".length));
      const rates = perMinute(i);
      const want = rates["200"] + rates["503"];
      if (edge.view !== "server" || signals.requests < want - 2 || signals.requests > want + 2 || signals.errors5xx > rates["503"] + 1) {
        throw new Error(`edge ${i}: ${JSON.stringify({ view: edge.view, requests: signals.requests, errors5xx: signals.errors5xx })}, wanted about ${want}`);
      }
    }
  }
  const sent = packs.reduce((n, p) => n + p.body.length, 0);
  for (const p of packs) metricsReport.parse(JSON.parse(gunzipSync(p.body).toString()));
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    JSON.stringify({
      bench: "metrics-agent",
      edges: EDGES,
      minutes: MINUTES,
      series: written.series,
      extraRssMiB: Math.round((peak - before) * 10) / 10,
      cpuMsPerMinute: Math.round((cpuSeconds * 1000) / MINUTES),
      mcpu: Math.round((cpuSeconds / MINUTES / 60) * 1000 * 100) / 100,
      reportBytesPerClusterMinute: Math.round(sent / MINUTES),
      reportJsonBytesPerClusterMinute: Math.round(packs.reduce((n, p) => n + p.jsonBytes, 0) / MINUTES),
      reports: packs.length,
    }),
  );
} finally {
  await server.stop();
}
