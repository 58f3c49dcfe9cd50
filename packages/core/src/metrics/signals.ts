/**
 * Golden signals of one edge (or one destination) over one time bucket, as meshplane keeps them
 * (docs/observability.md#the-signals): counts, never rates or percentiles, so buckets of any clusters
 * and minutes add up exactly; rates, ratios and percentiles are computed when read.
 */

/**
 * The upper bounds (milliseconds) of the latency histogram: Envoy's default buckets, which Istio's
 * `istio_request_duration_milliseconds` uses unless a pod overrides them. The histogram has one more
 * bucket, above the last bound (+Inf). An agent folds any other bound into the first of these at or
 * above it (docs/observability.md#latency).
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  0.5, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 600000, 1800000, 3600000,
];
/** Buckets in a latency histogram: one per bound plus the +Inf bucket. */
export const LATENCY_BUCKETS = LATENCY_BOUNDS_MS.length + 1;

/** The counts of one bucket of time. Every field is a non-negative integer. */
export interface Signals {
  /** HTTP and gRPC requests (Istio's `istio_requests_total`). */
  requests: number;
  /** Requests whose response code is not 2xx (`0`, no response, included). */
  non2xx: number;
  /** Requests answered 5xx. */
  errors5xx: number;
  /** gRPC requests whose `grpc-status` is not OK. */
  grpcErrors: number;
  /** Requests that failed, each counted once: no response (`0`), 5xx, or a gRPC status other than OK. */
  failures: number;
  /** Bytes from caller to destination (request bodies; TCP bytes received by the destination side). */
  bytesIn: number;
  /** Bytes from destination to caller. */
  bytesOut: number;
  tcpOpened: number;
  tcpClosed: number;
  /** Request durations per bucket of LATENCY_BOUNDS_MS, the last one above every bound; empty when no request was timed. */
  latency: number[];
}

export const COUNTER_FIELDS = [
  "requests",
  "non2xx",
  "errors5xx",
  "grpcErrors",
  "failures",
  "bytesIn",
  "bytesOut",
  "tcpOpened",
  "tcpClosed",
] as const satisfies readonly (keyof Signals)[];
export type CounterField = (typeof COUNTER_FIELDS)[number];

/** All zero, no latency. */
export function emptySignals(): Signals {
  return { requests: 0, non2xx: 0, errors5xx: 0, grpcErrors: 0, failures: 0, bytesIn: 0, bytesOut: 0, tcpOpened: 0, tcpClosed: 0, latency: [] };
}

/** Adds `add` into `into` (mutating it) and returns `into`; latency buckets add index by index. */
export function addSignals(into: Signals, add: Readonly<Signals>): Signals {
  for (const field of COUNTER_FIELDS) into[field] += add[field];
  if (add.latency.length > 0) {
    if (into.latency.length === 0) into.latency = Array.from({ length: LATENCY_BUCKETS }, () => 0);
    for (let i = 0; i < LATENCY_BUCKETS; i++) into.latency[i] = (into.latency[i] ?? 0) + (add.latency[i] ?? 0);
  }
  return into;
}

/** The sum of many buckets, a new object. */
export function sumSignals(all: Iterable<Readonly<Signals>>): Signals {
  const total = emptySignals();
  for (const s of all) addSignals(total, s);
  return total;
}

/** True when nothing was counted. */
export function isEmptySignals(s: Readonly<Signals>): boolean {
  return COUNTER_FIELDS.every((f) => s[f] === 0) && s.latency.every((c) => c === 0);
}

/**
 * The `q` quantile (0 < q < 1) of a latency histogram in milliseconds, as Prometheus's
 * `histogram_quantile` estimates it: linear inside the bucket it falls in, the first bucket starting
 * at 0; in the bucket above every bound, the highest bound. Undefined when the histogram is empty.
 */
export function latencyQuantileMs(latency: readonly number[], q: number): number | undefined {
  let total = 0;
  for (const c of latency) total += c;
  if (total <= 0) return undefined;
  const rank = q * total;
  let below = 0;
  for (let i = 0; i < latency.length; i++) {
    const count = latency[i] ?? 0;
    if (below + count >= rank && count > 0) {
      if (i >= LATENCY_BOUNDS_MS.length) return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
      const lower = i === 0 ? 0 : (LATENCY_BOUNDS_MS[i - 1] as number);
      const upper = LATENCY_BOUNDS_MS[i] as number;
      return lower + (upper - lower) * ((rank - below) / count);
    }
    below += count;
  }
  return LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1];
}

/** The share of requests that failed (0..1); undefined without requests. */
export function errorRatio(s: Readonly<Signals>): number | undefined {
  return s.requests > 0 ? s.failures / s.requests : undefined;
}

/**
 * Where a bound read from a histogram (`le`, parsed as a number: Prometheus 3 writes `1.0`) falls in
 * LATENCY_BOUNDS_MS: the first bound at or above it, or the +Inf bucket. Folding a finer histogram this
 * way never reports a request as faster than it was.
 */
export function latencyBucketIndex(le: number): number {
  if (Number.isNaN(le)) return LATENCY_BUCKETS - 1;
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) if (le <= (LATENCY_BOUNDS_MS[i] as number) * (1 + 1e-9)) return i;
  return LATENCY_BUCKETS - 1;
}
