/**
 * The traffic of the model (./traffic-model.ts): who calls whom, over which path, how much per minute,
 * with which outcomes and latencies, and the events on a known minute. Pure data and arithmetic: the
 * series (./traffic-series.ts) and the expected roll-ups (./traffic-model.ts) are both derived from it.
 * Minutes are indexes from the model's base time (minute 0 starts at `base`).
 */

/** Each meshplane cluster's Istio cluster ID (istiod's CLUSTER_ID): not its name, so readers must map. */
export const CLUSTER_IDS = { "cluster-1": "east", "cluster-2": "west" } as const;
export type ClusterName = keyof typeof CLUSTER_IDS;

/** Istio's (Envoy's) default latency bounds in milliseconds; the histograms have one more bucket, +Inf. */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  0.5, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 600000, 1800000, 3600000,
];
/** Buckets per histogram: the finite bounds and +Inf. */
export const BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The waypoint's workload (meshplane's waypoints are Gateways of this name). */
export const WAYPOINT_WORKLOAD = "meshplane-waypoint";
/** The east-west gateway's workload, in each cluster. */
export const EAST_WEST_GATEWAY = { namespace: "istio-system", workload: "istio-eastwestgateway" } as const;

export interface Workload {
  cluster: ClusterName;
  namespace: string;
  workload: string;
  /** Its pods; a copy of the traffic reported by this side is split between them. */
  pods: readonly string[];
}

export interface Destination extends Workload {
  /** The Service called (`destination_service_name`). */
  service: string;
}

/** One kind of answer: a series of its own on the Envoy side (`response_code`, `grpc_response_status`, `response_flags`). */
export interface Outcome {
  code: string;
  /** gRPC status number; absent for HTTP (the label is then absent, as Prometheus stores an empty value). */
  grpcStatus?: string;
  flags: string;
  /** Response bytes per request. */
  responseBytes: number;
}

/**
 * How a request or connection travels, which decides who reports it:
 * - `sidecar`: client sidecar or gateway (`reporter="source"`) and server sidecar (`destination`), one cluster;
 * - `east-west`: as `sidecar`, the client's copy in the source cluster's Prometheus and the server's in the
 *   destination's, plus the east-west gateway's TCP `source` series (no L7) in the destination cluster;
 * - `waypoint`: ambient through a waypoint: its L7 `waypoint` series (real client and backend in the labels)
 *   and ztunnel's two TCP hops (client to waypoint, `source`; waypoint to backend, `destination`);
 * - `ztunnel`: ambient without a waypoint, TCP only: the client's and the server's ztunnel (`source`, `destination`).
 */
export type Path = "sidecar" | "east-west" | "waypoint" | "ztunnel";

export interface HttpFlow {
  source: Workload;
  destination: Destination;
  protocol: "http" | "grpc";
  path: Exclude<Path, "ztunnel">;
  requestBytes: number;
  outcomes: readonly Outcome[];
  /** Minute `m`'s requests: per outcome, the count in each latency bucket (BUCKETS entries, not cumulative). */
  minute(m: number): number[][];
}

export interface TcpCounts {
  opened: number;
  closed: number;
  /** Bytes from caller to destination (`istio_tcp_received_bytes_total` of the server side). */
  bytesIn: number;
  bytesOut: number;
}

export interface TcpFlow {
  source: Workload;
  destination: Destination;
  protocol: "tcp";
  path: "ztunnel";
  minute(m: number): TcpCounts;
}

export type Flow = HttpFlow | TcpFlow;

/** The events, as minute indexes. */
export const EVENTS = {
  /** cart (cluster-1) answers 503 (and resets some streams: code 0) in minutes 12, 13 and 14. */
  errorBurst: { cluster: "cluster-1", namespace: "shop", service: "cart", fromMinute: 12, toMinute: 14 },
  /** catalog (cluster-1) gets slower from minute 10 on: every request moves up two buckets. */
  latencyShift: { cluster: "cluster-1", namespace: "shop", service: "catalog", atMinute: 10, buckets: 2 },
  /** frontend's pod restarts right after the sample at the start of minute 7: all its counters start again at 0. */
  restart: { cluster: "cluster-1", pod: "frontend-7c9f6d5b8-k2x4q", afterMinuteStart: 7 },
} as const;

/** The fewest minutes a model may have: every event falls inside it. */
export const MIN_MINUTES = 16;

/** `n` zeros. */
export const zeros = (n: number): number[] => Array.from({ length: n }, () => 0);

/** `n` split into integer counts by weight (largest remainder, ties to the lower index): they sum to `n`. */
export function allocate(n: number, weights: readonly number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (n * w) / total);
  const out = exact.map(Math.floor);
  let left = n - out.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left-- <= 0) break;
    out[i] = (out[i] ?? 0) + 1;
  }
  return out;
}

/** A latency profile: weight per bucket index. */
function latency(n: number, profile: Record<number, number>, shift = 0): number[] {
  const weights = zeros(BUCKETS);
  for (const [i, w] of Object.entries(profile)) weights[Math.min(Number(i) + shift, BUCKETS - 1)] = w;
  return allocate(n, weights);
}

/** A rate that moves a little from minute to minute (±2), never the same two minutes running. */
const wobble = (rate: number, m: number): number => rate + ((m * 7) % 5) - 2;

const FAST = { 4: 2, 5: 5, 6: 2.5, 7: 0.5 }; // mostly 25–100 ms
const SLOWER = { 6: 3, 7: 5, 8: 1.5, 9: 0.5 }; // mostly 100–500 ms

const ingress: Workload = { cluster: "cluster-1", namespace: "istio-system", workload: "istio-ingressgateway", pods: ["istio-ingressgateway-6f8d7c9b5-p7w2n"] };
const frontend: Workload = { cluster: "cluster-1", namespace: "shop", workload: "frontend", pods: [EVENTS.restart.pod] };
const reviews: Workload = { cluster: "cluster-2", namespace: "shop", workload: "reviews-v1", pods: ["reviews-v1-5d8f7b9c6-r4t8v"] };
const teller: Workload = { cluster: "cluster-2", namespace: "bank", workload: "teller", pods: ["teller-8b6c5d7f9-h3j5k"] };

const ok: Outcome = { code: "200", flags: "-", responseBytes: 2400 };
const inBurst = (m: number) => m >= EVENTS.errorBurst.fromMinute && m <= EVENTS.errorBurst.toMinute;

/** The traffic definition. */
export const FLOWS: readonly Flow[] = [
  {
    source: ingress,
    destination: { cluster: "cluster-1", namespace: "shop", service: "frontend", workload: "frontend", pods: frontend.pods },
    protocol: "http",
    path: "sidecar",
    requestBytes: 480,
    outcomes: [ok, { code: "404", flags: "-", responseBytes: 150 }],
    minute: (m) => [latency(wobble(114, m), FAST), latency(6, FAST)],
  },
  {
    source: frontend,
    destination: {
      cluster: "cluster-1",
      namespace: "shop",
      service: "cart",
      workload: "cart-v1",
      pods: ["cart-v1-6c7d8f5b9-a1b2c", "cart-v1-6c7d8f5b9-d3e4f"],
    },
    protocol: "http",
    path: "sidecar",
    requestBytes: 310,
    outcomes: [
      ok,
      { code: "404", flags: "-", responseBytes: 150 },
      { code: "503", flags: "-", responseBytes: 95 },
      { code: "0", flags: "UC", responseBytes: 0 },
    ],
    minute: (m) => [latency(wobble(88, m), FAST), latency(2, FAST), latency(inBurst(m) ? 30 : 0, FAST), latency(inBurst(m) ? 5 : 0, SLOWER)],
  },
  {
    source: frontend,
    destination: { cluster: "cluster-1", namespace: "shop", service: "catalog", workload: "catalog-v1", pods: ["catalog-v1-7f6b5c8d9-m5n6p"] },
    protocol: "grpc",
    path: "sidecar",
    requestBytes: 90,
    outcomes: [
      { code: "200", grpcStatus: "0", flags: "-", responseBytes: 1200 },
      { code: "200", grpcStatus: "5", flags: "-", responseBytes: 40 },
      { code: "200", grpcStatus: "14", flags: "-", responseBytes: 40 },
    ],
    minute: (m) => {
      const shift = m >= EVENTS.latencyShift.atMinute ? EVENTS.latencyShift.buckets : 0;
      return [latency(wobble(57, m), FAST, shift), latency(2, FAST, shift), latency(1, SLOWER, shift)];
    },
  },
  {
    source: frontend,
    destination: { ...reviews, service: "reviews" },
    protocol: "http",
    path: "east-west",
    requestBytes: 260,
    outcomes: [ok, { code: "500", flags: "-", responseBytes: 80 }],
    minute: (m) => [latency(wobble(40, m), SLOWER), latency(m % 2, SLOWER)],
  },
  {
    source: reviews,
    destination: { cluster: "cluster-2", namespace: "shop", service: "ratings", workload: "ratings-v1", pods: ["ratings-v1-9c8b7d6f5-s6u7w"] },
    protocol: "http",
    path: "sidecar",
    requestBytes: 120,
    outcomes: [{ ...ok, responseBytes: 300 }],
    minute: (m) => [latency(wobble(40, m), FAST)],
  },
  {
    source: teller,
    destination: { cluster: "cluster-2", namespace: "bank", service: "ledger", workload: "ledger", pods: ["ledger-5b9d8c7f6-x8y9z"] },
    protocol: "http",
    path: "waypoint",
    requestBytes: 700,
    outcomes: [ok, { code: "403", flags: "-", responseBytes: 19 }],
    minute: (m) => [latency(wobble(50, m), FAST), latency(2, FAST)],
  },
  {
    source: teller,
    destination: { cluster: "cluster-2", namespace: "bank", service: "vault", workload: "vault", pods: ["vault-0"] },
    protocol: "tcp",
    path: "ztunnel",
    minute: (m) => ({ opened: wobble(6, m), closed: m === 0 ? 3 : wobble(6, m - 1), bytesIn: wobble(6, m) * 2048, bytesOut: wobble(6, m) * 51_200 }),
  },
];

/**
 * The TCP counts of the connections that carry an HTTP flow's requests in minute `m` (the east-west
 * gateway's hop, ztunnel's hops to and from a waypoint): pooled mTLS connections, its HTTP bytes.
 */
export function tunnelCounts(flow: HttpFlow, m: number): TcpCounts {
  const perOutcome = flow.minute(m).map((buckets) => buckets.reduce((a, b) => a + b, 0));
  const requests = perOutcome.reduce((a, b) => a + b, 0);
  const bytesOut = perOutcome.reduce((sum, n, i) => sum + n * (flow.outcomes[i]?.responseBytes ?? 0), 0);
  return { opened: m % 5 === 0 ? 2 : 0, closed: m % 5 === 4 ? 2 : 0, bytesIn: requests * flow.requestBytes, bytesOut };
}
