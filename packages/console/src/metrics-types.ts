/**
 * What the console reads of the metrics API's answers (packages/core/src/metrics/views.ts). Written
 * out here because core's views entry, the one the console's browser build compiles against, does not
 * carry them, and core's other entries bring Node's crypto with them; test/browser/metrics.test.ts
 * holds core's types assignable to these, so the two cannot drift apart.
 */

export interface SignalSummary {
  requests: number;
  rps: number;
  errorRatio?: number | undefined;
  p50Ms?: number | undefined;
  p90Ms?: number | undefined;
  p99Ms?: number | undefined;
  bytesIn: number;
  bytesOut: number;
  tcpOpened: number;
  tcpClosed: number;
}

export interface SeriesPoint extends SignalSummary {
  t: string;
}

export interface ChangeMarker {
  at: string;
  kind: "VirtualMesh" | "TrafficPolicy" | "AccessPolicy";
  name: string;
  version: number;
  cluster: string;
  generation: number;
}

export interface ChangeImpact {
  destination: string;
  change: ChangeMarker;
  signal: "errorRatio" | "p99Ms";
  before: number;
  after: number;
  message: string;
}

export interface DestinationMetrics {
  destination: string;
  cluster: string;
  from: string;
  to: string;
  stepSeconds: number;
  points: SeriesPoint[];
  combined?: { clusters: string[]; points: SeriesPoint[] } | undefined;
  total: SignalSummary;
  markers: ChangeMarker[];
  impacts: ChangeImpact[];
  notes: string[];
}

export interface GraphNode {
  id: string;
  kind: "workload" | "destination" | "unknown" | "other";
  cluster?: string | undefined;
  istioCluster?: string | undefined;
  namespace?: string | undefined;
  name: string;
  resource?: string | undefined;
  mesh?: string | undefined;
  virtualMesh?: string | undefined;
  signals?: SignalSummary | undefined;
}

export interface GraphEdge {
  source: string;
  target: string;
  protocol: "http" | "grpc" | "tcp";
  crossCluster: boolean;
  via?: "east-west" | undefined;
  signals: SignalSummary;
}

export interface GraphView {
  from: string;
  to: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  metadata: { continue?: string | undefined };
}

export interface ImpactList {
  from: string;
  to: string;
  items: ChangeImpact[];
}
