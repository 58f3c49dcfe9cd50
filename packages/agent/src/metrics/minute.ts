import { LATENCY_BUCKETS, MINUTE_S, type MetricsEdge, type Signals, addSignals, emptySignals, latencyBucketIndex } from "@meshplane/core";
import type { Sample } from "./prometheus";
import { EDGE_LABELS, EDGE_SEPARATOR, type SumMetric, minuteQueries } from "./queries";

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

/** Where `request_protocol` is among the edge's parts. */
const PROTOCOL_PART = EDGE_LABELS.indexOf("request_protocol");

/** The `edge` label's parts, in EDGE_LABELS' order (./queries.ts). */
const edgeParts = (metric: Record<string, string>) => (metric.edge ?? "").split(EDGE_SEPARATOR);

/**
 * The edge a sample belongs to. A part Istio left empty (Prometheus drops an empty label) is
 * `unknown`, as Istio writes a value it does not know. Names are not checked here: an edge whose
 * label did not split into its seven parts keeps the whole label as its source workload, and an
 * unknown protocol as its protocol, which the report refuses and folds into `other`.
 */
function edgeOf(metric: Record<string, string>): MetricsEdge {
  const parts = edgeParts(metric);
  const [sc, sns, sw, dc, dns, ds, protocol] = parts.length === EDGE_LABELS.length ? parts.map((p) => p || "unknown") : [];
  return {
    source: { cluster: sc ?? "unknown", namespace: sns ?? "unknown", workload: sw ?? metric.edge ?? "" },
    destination: { cluster: dc ?? "unknown", namespace: dns ?? "unknown", service: ds ?? "unknown" },
    protocol: (protocol ?? "") as MetricsEdge["protocol"],
    view: metric.view === "server" ? "server" : "client",
  };
}

const SUM_FIELDS: Record<SumMetric, keyof Signals> = {
  request_bytes: "bytesIn",
  response_bytes: "bytesOut",
  tcp_received_bytes: "bytesIn",
  tcp_sent_bytes: "bytesOut",
  tcp_connections_opened: "tcpOpened",
  tcp_connections_closed: "tcpClosed",
};

/** Adds a request count into `s` by its outcome. */
function addOutcome(s: Signals, protocol: string, metric: Record<string, string>, n: number): void {
  const code = metric.response_code ?? "";
  const grpcError = protocol === "grpc" && metric.grpc_response_status !== "0";
  const is5xx = code.length === 3 && code[0] === "5";
  s.requests += n;
  if (!(code.length === 3 && code[0] === "2")) s.non2xx += n;
  if (is5xx) s.errors5xx += n;
  if (grpcError) s.grpcErrors += n;
  if (code === "0" || is5xx || grpcError) s.failures += n;
}

/** The edges of one minute as the answers come in: each edge's view chosen once, its signals added to in place. */
class MinuteBuilder {
  readonly edges = new Map<string, EdgeCounts>();
  /** Labels key → the view its figures are taken from. */
  private readonly views = new Map<string, string>();
  badValues = 0;

  /** A value as a count; undefined (and counted) for NaN, ±Inf and negatives. */
  count(value: number): number | undefined {
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
    this.badValues++;
    return undefined;
  }

  /**
   * The signals of `metric`'s edge to add to, or undefined when its view is not the one chosen for
   * the edge; `choose` makes its view the edge's when none is yet.
   */
  signals(metric: Record<string, string>, choose: boolean): Signals | undefined {
    const labels = metric.edge ?? "";
    const view = metric.view ?? "";
    const chosen = this.views.get(labels);
    if (chosen === undefined) {
      if (choose) this.views.set(labels, view);
    } else if (chosen !== view) return undefined;
    const key = `${labels}\u0000${view}`;
    let known = this.edges.get(key);
    if (!known) {
      known = { edge: edgeOf(metric), signals: emptySignals() };
      this.edges.set(key, known);
    }
    return known.signals;
  }
}

/**
 * The minute's edges from the three answers. Each edge's view is the one its `requests` rows came
 * in (bytes and latency of the other view, if any, are ignored); an edge with no request rows (TCP)
 * takes the view its sums came in. A hop whose source or destination workload is a relay is
 * dropped: ztunnel's hops to and from a waypoint (the waypoint's own series name the real caller and
 * destination), an east-west gateway's hop (the proxies at both ends count the requests it carries).
 */
export function minuteCounts(start: number, vectors: MinuteVectors, relays: RelaySet): MinuteCounts {
  const b = new MinuteBuilder();
  for (const { metric, value } of vectors.requests) {
    const n = b.count(value);
    if (n === undefined) continue;
    const s = b.signals(metric, true) as Signals;
    addOutcome(s, edgeParts(metric)[PROTOCOL_PART] ?? "", metric, n);
  }
  for (const [metric, latency] of histograms(vectors.latency, () => b.badValues++)) {
    const s = b.signals(metric, false);
    if (s) addSignals(s, { ...emptySignals(), latency });
  }
  const relayed = (ns: string | undefined, name: string | undefined) => relays.size > 0 && relays.has(`${ns ?? ""}/${name ?? ""}`);
  for (const { metric, value } of vectors.sums) {
    const n = b.count(value);
    const field = SUM_FIELDS[metric.m as SumMetric];
    if (n === undefined || field === undefined) continue;
    const [, sourceNamespace, sourceWorkload] = edgeParts(metric);
    if (relayed(sourceNamespace, sourceWorkload) || relayed(metric.destination_workload_namespace, metric.destination_workload)) continue;
    const s = b.signals(metric, true);
    if (s) (s[field] as number) += n;
  }
  return { start, edges: b.edges, badValues: b.badValues };
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
    if (metric.le === undefined || Number.isNaN(le) || !Number.isFinite(value) || value < 0) {
      bad();
      continue;
    }
    const key = `${metric.edge ?? ""}\u0000${metric.view}`;
    let entry = byEdge.get(key);
    if (!entry) {
      entry = { metric, rows: [] };
      byEdge.set(key, entry);
    }
    entry.rows.push([le, Math.round(value)]);
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
