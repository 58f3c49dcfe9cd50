import { LATENCY_BUCKETS, MINUTE_S, type MetricsEdge, type Signals, addSignals, emptySignals, latencyBucketIndex } from "@meshplane/core";
import type { Sample } from "./prometheus";
import { EDGE_LABELS, type SumMetric, minuteQueries } from "./queries";

/**
 * One minute of the cluster's traffic, per edge (docs/observability.md#the-report): the three
 * queries of ./queries.ts, run at the minute's end, turned into core's Signals. Names are as Istio
 * labelled them, not yet checked: the report folds those core refuses into `other`.
 */

/** One edge's counts in one minute. */
export interface EdgeCounts {
  edge: MetricsEdge;
  signals: Signals;
}

export interface MinuteCounts {
  /** The minute's start, epoch seconds. */
  start: number;
  /** By edgeKey. */
  edges: Map<string, EdgeCounts>;
  /** Values Prometheus answered that are no count (NaN, ±Inf, negative): left out. */
  badValues: number;
}

/** Workloads that relay others' traffic (waypoints, east-west gateways), as `<namespace>/<name>`. */
export type RelaySet = ReadonlySet<string>;

export interface MinuteVectors {
  requests: Sample[];
  latency: Sample[];
  sums: Sample[];
}

/** Istio writes `unknown` for a value it does not know; Prometheus drops an empty label altogether. */
const label = (metric: Record<string, string>, name: string) => metric[name] || "unknown";

const PROTOCOLS: Record<string, MetricsEdge["protocol"]> = { http: "http", grpc: "grpc", tcp: "tcp" };

/** The edge a sample belongs to; an unknown protocol is kept as `http` names would be, and refused later. */
function edgeOf(metric: Record<string, string>): MetricsEdge {
  return {
    source: { cluster: label(metric, "source_cluster"), namespace: label(metric, "source_workload_namespace"), workload: label(metric, "source_workload") },
    destination: {
      cluster: label(metric, "destination_cluster"),
      namespace: label(metric, "destination_service_namespace"),
      service: label(metric, "destination_service_name"),
    },
    protocol: PROTOCOLS[metric.request_protocol ?? ""] ?? (metric.request_protocol as MetricsEdge["protocol"]),
    view: metric.view === "server" ? "server" : "client",
  };
}

/** The edge's labels without its view: which view an edge's figures come from is chosen once per edge. */
const labelsKey = (metric: Record<string, string>) => EDGE_LABELS.map((l) => metric[l] ?? "").join("\u0000");

const SUM_FIELDS: Record<SumMetric, keyof Signals> = {
  request_bytes: "bytesIn",
  response_bytes: "bytesOut",
  tcp_received_bytes: "bytesIn",
  tcp_sent_bytes: "bytesOut",
  tcp_connections_opened: "tcpOpened",
  tcp_connections_closed: "tcpClosed",
};

/** Splits a request count into core's signals by its outcome. */
function outcomeSignals(metric: Record<string, string>, n: number): Signals {
  const s = emptySignals();
  const code = metric.response_code ?? "";
  const grpcError = metric.request_protocol === "grpc" && metric.grpc_response_status !== "0";
  const is5xx = /^5\d\d$/.test(code);
  s.requests = n;
  s.non2xx = /^2\d\d$/.test(code) ? 0 : n;
  s.errors5xx = is5xx ? n : 0;
  s.grpcErrors = grpcError ? n : 0;
  s.failures = code === "0" || is5xx || grpcError ? n : 0;
  return s;
}

/**
 * The minute's edges from the three answers. Each edge's view is the one its `requests` rows came
 * in (bytes and latency of the other view, if any, are ignored); an edge with no request rows (TCP)
 * takes the view its sums came in. A hop whose source or destination workload is a relay is
 * dropped: ztunnel's hops to and from a waypoint (the waypoint's own series name the real caller and
 * destination), an east-west gateway's hop (the proxies at both ends count the requests it carries).
 */
export function minuteCounts(start: number, vectors: MinuteVectors, relays: RelaySet): MinuteCounts {
  const edges = new Map<string, EdgeCounts>();
  const views = new Map<string, string>();
  let badValues = 0;
  const count = (value: number): number | undefined => {
    if (!Number.isFinite(value) || value < 0) {
      badValues++;
      return undefined;
    }
    return Math.round(value);
  };
  const add = (metric: Record<string, string>, signals: Signals) => {
    const edge = edgeOf(metric);
    const key = `${labelsKey(metric)}\u0000${edge.view}`;
    const known = edges.get(key);
    if (known) addSignals(known.signals, signals);
    else edges.set(key, { edge, signals });
  };
  const sameView = (metric: Record<string, string>) => {
    const chosen = views.get(labelsKey(metric));
    return chosen === undefined || chosen === metric.view;
  };

  for (const { metric, value } of vectors.requests) {
    const n = count(value);
    if (n === undefined) continue;
    views.set(labelsKey(metric), metric.view ?? "");
    add(metric, outcomeSignals(metric, n));
  }
  for (const [metric, latency] of histograms(vectors.latency, () => badValues++)) if (sameView(metric)) add(metric, { ...emptySignals(), latency });
  for (const { metric, value } of vectors.sums) {
    const n = count(value);
    const field = SUM_FIELDS[metric.m as SumMetric];
    if (n === undefined || field === undefined || !sameView(metric)) continue;
    const via = (ns: string, name: string) => relays.has(`${metric[ns] ?? ""}/${metric[name] ?? ""}`);
    if (via("source_workload_namespace", "source_workload") || via("destination_workload_namespace", "destination_workload")) continue;
    views.set(labelsKey(metric), metric.view ?? "");
    const s = emptySignals();
    (s[field] as number) = n;
    add(metric, s);
  }
  return { start, edges, badValues };
}

/**
 * Cumulative `le` rows (of any bounds) per edge and view, as core's per-bucket histogram: each row's
 * own count is its cumulative count less the one below it, folded into the first default bound at
 * or above its own (latencyBucketIndex). Rows that did not move are absent, which reads as 0.
 */
function histograms(samples: Sample[], bad: () => void): [Record<string, string>, number[]][] {
  const byEdge = new Map<string, { metric: Record<string, string>; rows: [number, number][] }>();
  for (const { metric, value } of samples) {
    const le = metric.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(metric.le);
    if (Number.isNaN(le) || metric.le === undefined || !Number.isFinite(value) || value < 0) {
      bad();
      continue;
    }
    const key = `${labelsKey(metric)}\u0000${metric.view}`;
    const entry = byEdge.get(key) ?? { metric, rows: [] };
    entry.rows.push([le, Math.round(value)]);
    byEdge.set(key, entry);
  }
  return [...byEdge.values()].map(({ metric, rows }) => {
    const latency = Array.from({ length: LATENCY_BUCKETS }, () => 0);
    let below = 0;
    for (const [le, cumulative] of rows.sort((a, b) => a[0] - b[0])) {
      const i = latencyBucketIndex(le);
      latency[i] = (latency[i] ?? 0) + Math.max(0, cumulative - below);
      below = Math.max(below, cumulative);
    }
    return [metric, latency];
  });
}

/**
 * Reads the minute starting at `start` (epoch seconds, a multiple of 60) from Prometheus: the three
 * queries one after another (a cluster's Prometheus is not there for meshplane alone), at the
 * minute's end. Throws the first query's PrometheusError: a minute is read whole or not at all.
 */
export async function readMinute(
  prometheus: { query(promql: string, timeSeconds: number): Promise<Sample[]> },
  start: number,
  relays: RelaySet,
): Promise<MinuteCounts> {
  const queries = minuteQueries();
  const end = start + MINUTE_S;
  const requests = await prometheus.query(queries.requests, end);
  const latency = await prometheus.query(queries.latency, end);
  const sums = await prometheus.query(queries.sums, end);
  return minuteCounts(start, { requests, latency, sums }, relays);
}
