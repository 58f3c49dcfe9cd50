/**
 * A traffic model of two clusters for tests of meshplane's golden signals: the series Istio's proxies
 * would leave in each cluster's Prometheus (to remote-write into a real one, test/support/prometheus),
 * and, computed from the traffic definition itself and never from those series, the roll-up per
 * minute that reading them must give.
 *
 * The world (./traffic-flows.ts `FLOWS`; the minute counts wobble by ±2 from minute to minute):
 * - clusters `cluster-1` and `cluster-2`, whose Istio cluster IDs (`source_cluster`, `destination_cluster`)
 *   are `east` and `west` (`CLUSTER_IDS`);
 * - cluster-1, namespace `shop`, sidecars: the ingress gateway (istio-system/istio-ingressgateway) calls
 *   frontend (HTTP, ~114 × 200 and 6 × 404 a minute); frontend calls cart (HTTP, two pods), catalog (gRPC:
 *   statuses 0, 5 and 14) and, across clusters through cluster-2's east-west gateway, reviews (HTTP, some 500s);
 * - cluster-2, namespace `shop`, sidecars: reviews-v1 calls ratings (HTTP); namespace `bank`, ambient:
 *   teller calls ledger through the waypoint `meshplane-waypoint` (HTTP, some 403s) and vault without
 *   one (TCP only: ztunnel's series).
 * Events (`EVENTS`, minute indexes from `base`): cart answers 503s and resets streams (code 0) in minutes
 * 12–14; catalog's latency moves up two buckets from minute 10; frontend's pod restarts right after the
 * sample at minute 7's start, so every counter of that pod starts again at 0.
 *
 * The series (./traffic-series.ts), per copy of the traffic: a sidecar path has the client's
 * `reporter="source"` copy and the server's `destination` copy with the same counts and latencies
 * (cross-cluster: the client's copy in cluster-1's Prometheus, the server's in cluster-2's, and the east-west
 * gateway's TCP `source` series in cluster-2, no L7); a waypoint path has the waypoint's L7 `waypoint` series
 * and ztunnel's two TCP hops (to and from the waypoint: readers must drop them); a ztunnel path has the
 * client's and the server's ztunnel TCP series (`source`, `destination`). Envoy's labels in full, `le` as
 * Prometheus 3 stores scraped ones (`1.0`, `3.6e+06`: `LE_LABELS`), HTTP series without
 * `grpc_response_status` (an empty value is an absent label), and a scrape job's target labels (`job`,
 * `namespace`, `pod`, `instance`, `app`). A sample every 15 s from `base` to `base + minutes × 60`, on every
 * series (none appears or vanishes mid-way); counters start at an hour's worth of their first minute.
 * `istio_request_bytes` and `istio_response_bytes` come as `_sum` and `_count` only (no buckets).
 *
 * The roll-up: minute `m` (epoch seconds, a multiple of 60) holds each counter's increase from the
 * sample at `m` to the sample at `m + 60`, a reset counting the value after it as the increase since it
 * (exact here: the restart falls right after a minute's first sample). Per edge (`EdgeKey`, clusters as
 * meshplane names), the server's numbers where the server side reports (sidecar `destination`, waypoint),
 * else the client's; TCP fields from ztunnel's and gateways' series; ztunnel's waypoint hops left out.
 * The east-west gateway's hop is not an edge (`eastWestHopsIn`): it carries the cross-cluster requests.
 */
import type { Series } from "../support/prometheus/remote-write";
import { BUCKETS, CLUSTER_IDS, type ClusterName, EVENTS, FLOWS, type Flow, MIN_MINUTES, type TcpCounts, tunnelCounts, zeros } from "./traffic-flows";
import { STEP_S, seriesOf } from "./traffic-series";

export { BUCKETS, CLUSTER_IDS, type ClusterName, EAST_WEST_GATEWAY, LATENCY_BOUNDS_MS, WAYPOINT_WORKLOAD, type Flow } from "./traffic-flows";
export { LE_LABELS, leLabel } from "./traffic-series";

export interface EdgeKey {
  sourceCluster: ClusterName;
  sourceNamespace: string;
  sourceWorkload: string;
  destinationCluster: ClusterName;
  destinationNamespace: string;
  destinationService: string;
  protocol: "http" | "grpc" | "tcp";
}

/** One minute's counts (the names of core's metrics signals). */
export interface ExpectedSignals {
  requests: number;
  /** Response code not 2xx (`0`, no response, included). */
  non2xx: number;
  errors5xx: number;
  /** gRPC requests with a status other than 0. */
  grpcErrors: number;
  /** Each failed request once: code `0`, 5xx, or a gRPC status other than 0. */
  failures: number;
  /** Requests per bucket (not cumulative): BUCKETS entries, +Inf last; empty for TCP (nothing timed). */
  latency: number[];
  /** Request direction: HTTP request bytes, TCP bytes received by the server side. */
  bytesIn: number;
  bytesOut: number;
  tcpOpened: number;
  tcpClosed: number;
}

export interface ExpectedEdge {
  key: EdgeKey;
  /** Whose numbers: the server side's, or the client's where the server side is another cluster's. */
  view: "server" | "client";
  crossCluster: boolean;
  signals: ExpectedSignals;
}

export interface ExpectedDestination {
  cluster: ClusterName;
  namespace: string;
  service: string;
  /** Its edges' signals summed. */
  signals: ExpectedSignals;
}

/** The east-west gateway's TCP series toward one destination service, in the destination's cluster. */
export interface EastWestHop {
  cluster: ClusterName;
  namespace: string;
  service: string;
  signals: ExpectedSignals;
}

export interface TrafficModel {
  /** Epoch seconds of the first sample (minute-aligned). */
  base: number;
  minutes: number;
  /** Epoch seconds of the last sample, `base + minutes × 60`. */
  end: number;
  stepSeconds: number;
  /** The start of each minute with a roll-up: `base`, `base + 60`, … `end - 60`. */
  minuteStarts: number[];
  clusterIds: typeof CLUSTER_IDS;
  flows: readonly Flow[];
  /** The series of each cluster's Prometheus. */
  series: Record<ClusterName, Series[]>;
  /** The events at epoch seconds: the burst covers [from, to); the restart falls right after the sample at `at`. */
  events: {
    errorBurst: { cluster: ClusterName; namespace: string; service: string; from: number; to: number };
    latencyShift: { cluster: ClusterName; namespace: string; service: string; at: number; buckets: number };
    restart: { cluster: ClusterName; pod: string; at: number };
  };
  /** What one cluster's Prometheus gives for the minute starting at `minute`, each edge once. */
  edgesIn(cluster: ClusterName, minute: number): ExpectedEdge[];
  /** The east-west gateway's hops in one cluster's Prometheus for that minute. */
  eastWestHopsIn(cluster: ClusterName, minute: number): EastWestHop[];
  /** Every edge once across clusters (the server's view of a cross-cluster edge). */
  edges(minute: number): ExpectedEdge[];
  /** Per destination service, its edges summed. */
  destinations(minute: number): ExpectedDestination[];
}

/** One string per edge key. */
export function edgeId(key: EdgeKey): string {
  return [
    key.sourceCluster,
    key.sourceNamespace,
    key.sourceWorkload,
    key.destinationCluster,
    key.destinationNamespace,
    key.destinationService,
    key.protocol,
  ].join("/");
}

function emptySignals(latency: boolean): ExpectedSignals {
  return {
    requests: 0,
    non2xx: 0,
    errors5xx: 0,
    grpcErrors: 0,
    failures: 0,
    latency: latency ? zeros(BUCKETS) : [],
    bytesIn: 0,
    bytesOut: 0,
    tcpOpened: 0,
    tcpClosed: 0,
  };
}

function tcpSignals(c: TcpCounts): ExpectedSignals {
  return { ...emptySignals(false), bytesIn: c.bytesIn, bytesOut: c.bytesOut, tcpOpened: c.opened, tcpClosed: c.closed };
}

/** A flow's signals in minute index `m`, straight from its definition. */
function flowSignals(flow: Flow, m: number): ExpectedSignals {
  if (flow.protocol === "tcp") return tcpSignals(flow.minute(m));
  const s = emptySignals(true);
  flow.minute(m).forEach((buckets, o) => {
    const outcome = flow.outcomes[o];
    if (!outcome) throw new Error("a minute with more outcomes than its flow");
    const n = buckets.reduce((a, b) => a + b, 0);
    const code = Number(outcome.code);
    const grpcError = flow.protocol === "grpc" && outcome.grpcStatus !== "0";
    s.requests += n;
    if (code < 200 || code > 299) s.non2xx += n;
    if (code >= 500 && code <= 599) s.errors5xx += n;
    if (grpcError) s.grpcErrors += n;
    if (code === 0 || (code >= 500 && code <= 599) || grpcError) s.failures += n;
    s.latency = s.latency.map((c, j) => c + (buckets[j] ?? 0));
    s.bytesIn += n * flow.requestBytes;
    s.bytesOut += n * outcome.responseBytes;
  });
  return s;
}

function addInto(into: ExpectedSignals, add: ExpectedSignals): void {
  for (const f of ["requests", "non2xx", "errors5xx", "grpcErrors", "failures", "bytesIn", "bytesOut", "tcpOpened", "tcpClosed"] as const) into[f] += add[f];
  if (add.latency.length > 0) into.latency = into.latency.length > 0 ? into.latency.map((c, j) => c + (add.latency[j] ?? 0)) : [...add.latency];
}

function keyOf(flow: Flow): EdgeKey {
  const { source: s, destination: d } = flow;
  return {
    sourceCluster: s.cluster,
    sourceNamespace: s.namespace,
    sourceWorkload: s.workload,
    destinationCluster: d.cluster,
    destinationNamespace: d.namespace,
    destinationService: d.service,
    protocol: flow.protocol,
  };
}

/**
 * The model with its first sample at `base` (epoch seconds, a multiple of 60, in the past: the last
 * sample, `base + minutes × 60`, must not be later than now) over `minutes` minutes (default 20, at least 16).
 */
export function trafficModel(options: { base: number; minutes?: number }): TrafficModel {
  const { base } = options;
  const minutes = options.minutes ?? 20;
  if (!Number.isInteger(base) || base % 60 !== 0) throw new Error(`base must be epoch seconds at a minute's start, not ${base}`);
  if (!Number.isInteger(minutes) || minutes < MIN_MINUTES) throw new Error(`a model has at least ${MIN_MINUTES} minutes`);
  const index = (minute: number): number => {
    const m = (minute - base) / 60;
    if (!Number.isInteger(m) || m < 0 || m >= minutes) throw new Error(`${minute} is not the start of one of the model's minutes`);
    return m;
  };
  const edgesIn = (cluster: ClusterName, minute: number): ExpectedEdge[] => {
    const m = index(minute);
    return FLOWS.filter((f) => f.destination.cluster === cluster || f.source.cluster === cluster).map((f) => ({
      key: keyOf(f),
      view: f.destination.cluster === cluster ? "server" : "client",
      crossCluster: f.source.cluster !== f.destination.cluster,
      signals: flowSignals(f, m),
    }));
  };
  const edges = (minute: number): ExpectedEdge[] => {
    const m = index(minute);
    return FLOWS.map((f) => ({ key: keyOf(f), view: "server", crossCluster: f.source.cluster !== f.destination.cluster, signals: flowSignals(f, m) }));
  };
  return {
    base,
    minutes,
    end: base + minutes * 60,
    stepSeconds: STEP_S,
    minuteStarts: Array.from({ length: minutes }, (_, m) => base + m * 60),
    clusterIds: CLUSTER_IDS,
    flows: FLOWS,
    series: seriesOf(FLOWS, base, minutes),
    events: {
      errorBurst: { ...EVENTS.errorBurst, from: base + EVENTS.errorBurst.fromMinute * 60, to: base + (EVENTS.errorBurst.toMinute + 1) * 60 },
      latencyShift: { ...EVENTS.latencyShift, at: base + EVENTS.latencyShift.atMinute * 60 },
      restart: { cluster: EVENTS.restart.cluster, pod: EVENTS.restart.pod, at: base + EVENTS.restart.afterMinuteStart * 60 },
    },
    edgesIn,
    eastWestHopsIn: (cluster, minute) => {
      const m = index(minute);
      return FLOWS.flatMap((f) =>
        f.protocol !== "tcp" && f.path === "east-west" && f.destination.cluster === cluster
          ? [{ cluster, namespace: f.destination.namespace, service: f.destination.service, signals: tcpSignals(tunnelCounts(f, m)) }]
          : [],
      );
    },
    edges,
    destinations: (minute) => {
      const byDestination = new Map<string, ExpectedDestination>();
      for (const e of edges(minute)) {
        const id = `${e.key.destinationCluster}/${e.key.destinationNamespace}/${e.key.destinationService}`;
        let d = byDestination.get(id);
        if (!d) {
          d = { cluster: e.key.destinationCluster, namespace: e.key.destinationNamespace, service: e.key.destinationService, signals: emptySignals(false) };
          byDestination.set(id, d);
        }
        addInto(d.signals, e.signals);
      }
      return [...byDestination.values()];
    },
  };
}
