import { z } from "zod";

/**
 * What the metrics API answers (docs/observability.md#the-api): the bodies of
 * `GET /v1/destinations/{name}/metrics` and `GET /v1/graph`, once, for the control plane that sends
 * them and the CLI and console that read them. Rates are per second over the bucket or window;
 * ratios 0..1; latencies in milliseconds, estimated from the summed histogram; a figure with nothing
 * to compute it from (no request, no timed request) is absent, never 0.
 */

/** The signals of one bucket or window, derived from its counts. */
export const signalSummary = z.object({
  requests: z.number().int(),
  /** Requests per second. */
  rps: z.number(),
  /** Failed requests (no response, 5xx, gRPC not OK) over requests. */
  errorRatio: z.number().optional(),
  non2xx: z.number().int(),
  errors5xx: z.number().int(),
  grpcErrors: z.number().int(),
  p50Ms: z.number().optional(),
  p90Ms: z.number().optional(),
  p99Ms: z.number().optional(),
  bytesIn: z.number().int(),
  bytesOut: z.number().int(),
  tcpOpened: z.number().int(),
  tcpClosed: z.number().int(),
});
export type SignalSummary = z.infer<typeof signalSummary>;

export const seriesPoint = signalSummary.extend({ t: z.string().meta({ description: "the bucket's start (RFC 3339)" }) });
export type SeriesPoint = z.infer<typeof seriesPoint>;

/** A change that reached a cluster: a policy's version applied there (docs/observability.md#change-impact). */
export const changeMarker = z.object({
  at: z.string(),
  kind: z.enum(["VirtualMesh", "TrafficPolicy", "AccessPolicy"]),
  name: z.string(),
  /** The resource's generation (`metadata.generation`) that was applied. */
  version: z.number().int(),
  cluster: z.string(),
  /** The snapshot generation that carried it. */
  generation: z.number().int(),
});
export type ChangeMarker = z.infer<typeof changeMarker>;

/** A destination whose error ratio or p99 rose past the threshold after a change, naming the change. */
export const changeImpact = z.object({
  destination: z.string(),
  change: changeMarker,
  signal: z.enum(["errorRatio", "p99Ms"]),
  before: z.number(),
  after: z.number(),
  message: z.string(),
});
export type ChangeImpact = z.infer<typeof changeImpact>;

export const destinationMetrics = z.object({
  destination: z.string(),
  cluster: z.string(),
  from: z.string(),
  to: z.string(),
  /** Seconds per point. */
  stepSeconds: z.number().int(),
  /** Traffic into this destination, from callers in every cluster. */
  points: z.array(seriesPoint),
  /**
   * Where the same service (namespace and name) runs in more clusters of the tenant: all of them
   * together, per point, and the clusters summed.
   */
  combined: z.object({ clusters: z.array(z.string()), points: z.array(seriesPoint) }).optional(),
  /** The whole window. */
  total: signalSummary,
  markers: z.array(changeMarker),
  impacts: z.array(changeImpact),
  /** What the figures cannot show and why (ambient without a waypoint: TCP only; no metrics from a cluster). */
  notes: z.array(z.string()),
});
export type DestinationMetrics = z.infer<typeof destinationMetrics>;

export const graphNode = z.object({
  id: z.string(),
  kind: z.enum(["workload", "destination", "unknown", "other"]),
  /** meshplane's cluster name; absent when the Istio cluster ID maps to no cluster of the tenant. */
  cluster: z.string().optional(),
  /** The Istio cluster ID as reported, when it maps to no cluster. */
  istioCluster: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string(),
  /** The discovered object's name (a Destination's or a Workload's), to click through to. */
  resource: z.string().optional(),
  mesh: z.string().optional(),
  virtualMesh: z.string().optional(),
  /** A destination's traffic in from every caller over the window (not only the edges of this page); p99 included. */
  signals: signalSummary.optional(),
});
export type GraphNode = z.infer<typeof graphNode>;

export const graphEdge = z.object({
  source: z.string(),
  target: z.string(),
  protocol: z.enum(["http", "grpc", "tcp"]),
  /** Source and destination are in different clusters. */
  crossCluster: z.boolean(),
  /** The way a cross-cluster call goes: through the destination cluster's east-west gateway. */
  via: z.enum(["east-west"]).optional(),
  signals: signalSummary,
});
export type GraphEdge = z.infer<typeof graphEdge>;

export const graphView = z.object({
  from: z.string(),
  to: z.string(),
  nodes: z.array(graphNode),
  edges: z.array(graphEdge),
  metadata: z.object({
    continue: z.string().optional().meta({ description: "present when more edges follow: pass it as `?continue=`" }),
  }),
});
export type GraphView = z.infer<typeof graphView>;

/**
 * The tenant's destinations hurt by a change in a window (`GET /v1/metrics/impacts`), for the
 * overview's problems: newest change first, at most MAX_IMPACTS (`truncated` when more were found).
 * Not a paged list: a bounded answer.
 */
export const MAX_IMPACTS = 200;
export const impactList = z.object({
  from: z.string(),
  to: z.string(),
  impacts: z.array(changeImpact),
  truncated: z
    .boolean()
    .optional()
    .meta({ description: `present, true, when more than ${MAX_IMPACTS} impacts were found: the newest are listed` }),
});
export type ImpactList = z.infer<typeof impactList>;
