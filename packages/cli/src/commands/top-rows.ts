/**
 * What `meshplane top` lists, from the pages of `GET /v1/graph` (docs/api.md): a row per destination
 * (its traffic in from every caller) or per edge, sorted as asked. Pure: no I/O.
 */
import type { GraphEdge, GraphNode, GraphView, SignalSummary } from "@meshplane/core";
import { sumSummaries } from "./signals";

export const SORTS = ["rate", "errors", "p99", "name"] as const;
export type Sort = (typeof SORTS)[number];

/** A node's cluster: meshplane's name, or `istio:<id>` for an Istio cluster ID no cluster of the tenant claims (docs/observability.md#clusters). */
export function clusterText(node: GraphNode | undefined): string {
  if (node?.cluster !== undefined) return node.cluster;
  return node?.istioCluster !== undefined ? `istio:${node.istioCluster}` : "";
}

/** `namespace/name`, or the name alone for what Istio could not name (`unknown`, `other`). */
export function nodeName(node: GraphNode | undefined, id = ""): string {
  if (node === undefined) return id;
  return node.namespace !== undefined ? `${node.namespace}/${node.name}` : node.name;
}

/** `cluster/namespace/name`: a node told apart from the same service in another cluster. */
export function placedName(node: GraphNode | undefined, id = ""): string {
  const cluster = clusterText(node);
  return cluster === "" ? nodeName(node, id) : `${cluster}/${nodeName(node, id)}`;
}

export interface DestinationRow {
  node: GraphNode;
  /** Its traffic in: the node's own signals, or (for `unknown`, `other`) its edges' summed, without quantiles. */
  signals: SignalSummary;
  /** Distinct sources among the edges read. */
  callers: number;
}

export interface EdgeRow {
  edge: GraphEdge;
  source: GraphNode | undefined;
  target: GraphNode | undefined;
}

/** Every node the pages name, by id (a node referenced by the edges of two pages is the same node). */
export function nodesOf(pages: readonly GraphView[]): Map<string, GraphNode> {
  const nodes = new Map<string, GraphNode>();
  for (const page of pages) for (const n of page.nodes) if (!nodes.has(n.id)) nodes.set(n.id, n);
  return nodes;
}

/** Each destination the edges of `pages` reach (every node that is not a calling workload), once. */
export function destinationRows(pages: readonly GraphView[]): DestinationRow[] {
  const nodes = nodesOf(pages);
  const incoming = new Map<string, GraphEdge[]>();
  for (const page of pages) for (const e of page.edges) incoming.set(e.target, [...(incoming.get(e.target) ?? []), e]);
  const rows: DestinationRow[] = [];
  for (const [id, edges] of incoming) {
    const node = nodes.get(id) ?? { id, kind: "unknown", name: id };
    if (node.kind === "workload") continue;
    rows.push({ node, signals: node.signals ?? sumSummaries(edges.map((e) => e.signals)), callers: new Set(edges.map((e) => e.source)).size });
  }
  for (const node of nodes.values())
    if (node.kind === "destination" && node.signals !== undefined && !incoming.has(node.id)) rows.push({ node, signals: node.signals, callers: 0 });
  return rows;
}

/** Each edge of `pages` with its two nodes. */
export function edgeRows(pages: readonly GraphView[]): EdgeRow[] {
  const nodes = nodesOf(pages);
  return pages.flatMap((page) => page.edges.map((edge) => ({ edge, source: nodes.get(edge.source), target: nodes.get(edge.target) })));
}

/** Larger first, what could not be computed last. */
const descending = (a: number | undefined, b: number | undefined) => (a === b ? 0 : a === undefined ? 1 : b === undefined ? -1 : b - a);

/** Rows by `sort`: rate, error ratio and p99 highest first; name A to Z; ties by name, so the order is stable. */
export function sortRows<R>(rows: readonly R[], sort: Sort, signals: (r: R) => SignalSummary, name: (r: R) => string): R[] {
  const byName = (a: R, b: R) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
  const first: Record<Sort, (a: R, b: R) => number> = {
    rate: (a, b) => descending(signals(a).rps, signals(b).rps),
    errors: (a, b) => descending(signals(a).errorRatio, signals(b).errorRatio) || descending(signals(a).rps, signals(b).rps),
    p99: (a, b) => descending(signals(a).p99Ms, signals(b).p99Ms),
    name: () => 0,
  };
  return [...rows].sort((a, b) => first[sort](a, b) || byName(a, b));
}

/** The name a destination row sorts by: its service, then its cluster. */
export const destinationKey = (r: DestinationRow) => `${nodeName(r.node)}\u0000${clusterText(r.node)}`;
/** The name an edge row sorts by: source, then destination. */
export const edgeKey = (r: EdgeRow) => `${placedName(r.source, r.edge.source)}\u0000${placedName(r.target, r.edge.target)}`;
