import { z } from "zod";
import { dnsLabel, dnsSubdomain } from "../api/common";
import { LATENCY_BUCKETS } from "./signals";

/**
 * The agent's metrics report (`POST /v1/agent/metrics`, docs/observability.md#the-report): the golden
 * signals of each edge its cluster's Prometheus saw, in minute buckets. Everything in it is untrusted
 * input from one cluster: bounded here, at the boundary, before anything is kept.
 */

/** The bounds of one report (docs/observability.md#limits). */
export const METRICS_LIMITS = {
  /** Named edges; the rest of the traffic is summed into each minute's `other`. */
  edges: 1000,
  /** Minute buckets (a report every 5 minutes carries 5; an agent that could not send for a while catches up to 15). */
  minutes: 15,
  /** The request body as sent (gzip), and decompressed. */
  bodyBytes: 256 * 1024,
  decodedBytes: 4 * 1024 * 1024,
  /** A message about reading Prometheus, shown in the cluster's status. */
  message: 1024,
} as const;

/** Seconds in a bucket: every series is kept at minute resolution (and hourly roll-ups of it). */
export const MINUTE_S = 60;

/** A count: a non-negative integer a double holds exactly. */
const count = z.number().int("must be an integer").min(0, "must not be negative").max(Number.MAX_SAFE_INTEGER, "is too large");

/**
 * An Istio cluster ID (`source_cluster`, `destination_cluster`: istiod's `CLUSTER_ID`, `Kubernetes`
 * unless set), or `unknown` as Istio writes a missing one. Not a meshplane name: the control plane maps
 * it to one (docs/observability.md#clusters).
 */
export const istioClusterId = z
  .string()
  .min(1, "must not be empty")
  .max(253, "must be at most 253 characters")
  .regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/, "must be an Istio cluster ID (letters, digits, '-', '_', '.')");

/** A namespace or `unknown`. */
const namespace = dnsLabel;
/** A workload (Deployment and the like) or `unknown`. */
const workload = dnsSubdomain.min(1, "must not be empty");
/** A Service's name (a DNS-1123 label) or `unknown`. */
const service = dnsLabel.min(1, "must not be empty");

export const edgeSource = z.strictObject({ cluster: istioClusterId, namespace, workload });
export const edgeDestination = z.strictObject({ cluster: istioClusterId, namespace, service });

/**
 * One edge: a source workload calling a destination service. `view` says whose numbers they are:
 * `server` (the destination's proxy or waypoint: what meshplane keeps when both sides report) or
 * `client` (the caller's proxy, for a destination whose side has no proxy or is another cluster's).
 */
export const metricsEdge = z.strictObject({
  source: edgeSource,
  destination: edgeDestination,
  protocol: z.enum(["http", "grpc", "tcp"]),
  view: z.enum(["server", "client"]),
});
export type MetricsEdge = z.infer<typeof metricsEdge>;

/** The counts of a bucket; an absent counter is 0, an absent latency histogram is "no request timed". */
const counts = {
  requests: count.optional(),
  non2xx: count.optional(),
  errors5xx: count.optional(),
  grpcErrors: count.optional(),
  failures: count.optional(),
  bytesIn: count.optional(),
  bytesOut: count.optional(),
  tcpOpened: count.optional(),
  tcpClosed: count.optional(),
  latency: z.array(count).length(LATENCY_BUCKETS, `must have ${LATENCY_BUCKETS} buckets`).optional(),
};

/** A count not refused for itself, which can be compared with others. */
const valid = (v: number | undefined) => v === undefined || (Number.isSafeInteger(v) && v >= 0);

/** Requests of a kind can never outnumber requests. */
function consistent(row: { requests?: number; non2xx?: number; errors5xx?: number; grpcErrors?: number; failures?: number }, ctx: z.RefinementCtx) {
  const requests = row.requests ?? 0;
  if (!valid(row.requests) || !valid(row.non2xx)) return;
  for (const field of ["non2xx", "errors5xx", "grpcErrors", "failures"] as const) {
    if (valid(row[field]) && (row[field] ?? 0) > requests) ctx.addIssue({ code: "custom", path: [field], message: "must not exceed requests" });
  }
  if ((row.errors5xx ?? 0) > (row.non2xx ?? 0)) ctx.addIssue({ code: "custom", path: ["errors5xx"], message: "must not exceed non2xx" });
}

/** One edge's counts in one minute; `edge` indexes the report's `edges`. */
export const metricsRow = z.strictObject({ edge: count, ...counts }).superRefine(consistent);
export type MetricsRow = z.infer<typeof metricsRow>;

/** Traffic of the edges beyond the report's named ones, summed; `edges` says how many were folded. */
export const otherRow = z.strictObject({ edges: count, ...counts }).superRefine(consistent);

export const metricsMinute = z.strictObject({
  /** The minute's start, epoch seconds (a multiple of 60): counter increases from `start` to `start + 60`. */
  start: count.refine((s) => s % MINUTE_S === 0, "must be a multiple of 60"),
  rows: z.array(metricsRow).max(METRICS_LIMITS.edges, `must have at most ${METRICS_LIMITS.edges} rows`),
  other: otherRow.optional(),
});
export type MetricsMinute = z.infer<typeof metricsMinute>;

/** How reading the cluster's Prometheus went, for the cluster's status. */
export const metricsSourceHealth = z.strictObject({
  state: z.enum(["ok", "partial", "unavailable"]),
  message: z.string().max(METRICS_LIMITS.message, `must be at most ${METRICS_LIMITS.message} characters`).optional(),
});
export type MetricsSourceHealth = z.infer<typeof metricsSourceHealth>;

export const metricsReport = z
  .strictObject({
    /** The cluster the agent authenticated as; a report for any other is refused. */
    cluster: dnsLabel,
    /** The agent's clock when it built the report (epoch ms): of two reports of one minute, the later is kept. */
    generatedAt: count,
    /** This cluster's own Istio cluster ID, which its edges' `cluster` fields use for it. */
    istioClusterId,
    health: metricsSourceHealth,
    edges: z.array(metricsEdge).max(METRICS_LIMITS.edges, `must have at most ${METRICS_LIMITS.edges} edges`),
    minutes: z.array(metricsMinute).max(METRICS_LIMITS.minutes, `must have at most ${METRICS_LIMITS.minutes} minutes`),
  })
  .superRefine((report, ctx) => {
    const seen = new Set<string>();
    report.edges.forEach((edge, i) => {
      const key = edgeKey(edge);
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["edges", i], message: "repeats an earlier edge" });
      seen.add(key);
    });
    const starts = new Set<number>();
    report.minutes.forEach((minute, m) => {
      if (starts.has(minute.start)) ctx.addIssue({ code: "custom", path: ["minutes", m, "start"], message: "repeats an earlier minute" });
      starts.add(minute.start);
      const rows = new Set<number>();
      minute.rows.forEach((row, r) => {
        if (row.edge >= report.edges.length) ctx.addIssue({ code: "custom", path: ["minutes", m, "rows", r, "edge"], message: "names no edge of the report" });
        if (rows.has(row.edge)) ctx.addIssue({ code: "custom", path: ["minutes", m, "rows", r, "edge"], message: "repeats an edge of this minute" });
        rows.add(row.edge);
      });
    });
  });
export type MetricsReport = z.infer<typeof metricsReport>;

/** One string per edge identity (its view included): equal edges, equal keys. */
export function edgeKey(edge: MetricsEdge): string {
  const s = edge.source;
  const d = edge.destination;
  return [s.cluster, s.namespace, s.workload, d.cluster, d.namespace, d.service, edge.protocol, edge.view].join("/");
}
