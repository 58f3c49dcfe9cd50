/**
 * What the graph page draws, from `GET /v1/graph` alone (docs/console.md#the-graph): the filters, a
 * deterministic layout and the table's order. The layout needs no library and no iteration, so 2,000
 * nodes lay out in a few milliseconds and the same answer always gives the same picture: one group of
 * columns per cluster (in name order; Istio cluster IDs that map to no cluster, then what has no
 * cluster, after them), callers on the left and destinations on the right, each side sorted by
 * namespace (with a heading row) then name and wrapped into columns of at most MAX_ROWS rows.
 */
import type { GraphEdge, GraphNode, GraphView } from "@meshplane/core/views";

export const NODE_W = 190;
export const ROW_H = 26;
const NODE_H = 20;
/** Rows per column before a side wraps into another column. */
export const MAX_ROWS = 60;
const COL_GAP = 24;
/** Between a cluster's callers and its destinations: room for its own edges to bend. */
const SIDE_GAP = 140;
const GROUP_GAP = 90;
const GROUP_HEAD = 34;
const PAD = 12;

export interface GraphFilter {
  cluster?: string;
  namespace?: string;
  mesh?: string;
  virtualMesh?: string;
}

/** The group (cluster column) a node is drawn in. */
export function groupOf(node: GraphNode): string {
  if (node.cluster) return node.cluster;
  return node.istioCluster ? `istio:${node.istioCluster}` : "no cluster";
}

const matches = (n: GraphNode | undefined, f: GraphFilter) =>
  n !== undefined &&
  (!f.cluster || groupOf(n) === f.cluster) &&
  (!f.namespace || n.namespace === f.namespace) &&
  (!f.mesh || n.mesh === f.mesh) &&
  (!f.virtualMesh || n.virtualMesh === f.virtualMesh);

/**
 * The part of `view` a filter keeps: every edge with an end that matches (its other end comes with
 * it, so a namespace's callers from elsewhere stay in view) and every matching node. No filter: all.
 */
export function filterGraph(view: Pick<GraphView, "nodes" | "edges">, filter: GraphFilter): { nodes: GraphNode[]; edges: GraphEdge[] } {
  if (!filter.cluster && !filter.namespace && !filter.mesh && !filter.virtualMesh) return { nodes: view.nodes, edges: view.edges };
  const byId = new Map(view.nodes.map((n) => [n.id, n]));
  const edges = view.edges.filter((e) => matches(byId.get(e.source), filter) || matches(byId.get(e.target), filter));
  const keep = new Set(edges.flatMap((e) => [e.source, e.target]));
  return { nodes: view.nodes.filter((n) => keep.has(n.id) || matches(n, filter)), edges };
}

/** The values each filter can take, sorted, from the nodes themselves. */
export function filterOptions(nodes: readonly GraphNode[]): Record<keyof GraphFilter, string[]> {
  const of = (pick: (n: GraphNode) => string | undefined) => [...new Set(nodes.map(pick).filter((v): v is string => !!v))].sort();
  return { cluster: of(groupOf), namespace: of((n) => n.namespace), mesh: of((n) => n.mesh), virtualMesh: of((n) => n.virtualMesh) };
}

export interface PlacedNode {
  node: GraphNode;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PlacedEdge {
  edge: GraphEdge;
  /** An SVG path from the caller's right side to the destination's left side (left to right when the destination's cluster is drawn to the left). */
  d: string;
  mid: { x: number; y: number };
}

export interface GraphLayout {
  width: number;
  height: number;
  groups: { name: string; x: number; y: number; w: number; h: number }[];
  headings: { text: string; x: number; y: number }[];
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

function groupRank(name: string): number {
  if (name === "no cluster") return 2;
  return name.startsWith("istio:") ? 1 : 0;
}

const byNamespaceThenName = (a: GraphNode, b: GraphNode) =>
  (a.namespace ?? "\uffff").localeCompare(b.namespace ?? "\uffff") || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

/** Lays out one side as rows (namespace headings, then nodes) cut into columns; returns its width. */
function placeSide(side: GraphNode[], x0: number, y0: number, out: GraphLayout): { width: number; rows: number } {
  side.sort(byNamespaceThenName);
  let col = 0;
  let row = 0;
  let namespace: string | undefined | null = null;
  const at = () => ({ x: x0 + col * (NODE_W + COL_GAP), y: y0 + row * ROW_H });
  const next = () => {
    row++;
    if (row >= MAX_ROWS) {
      col++;
      row = 0;
    }
  };
  for (const node of side) {
    if (node.namespace !== namespace || row === 0) {
      // A heading starts each namespace, and each column, so a wrapped column still says where it is.
      if (row >= MAX_ROWS - 1) {
        col++;
        row = 0;
      }
      namespace = node.namespace;
      const p = at();
      out.headings.push({ text: node.namespace ?? "no namespace", x: p.x, y: p.y + ROW_H - 8 });
      next();
    }
    const p = at();
    out.nodes.push({ node, x: p.x, y: p.y + (ROW_H - NODE_H) / 2, w: NODE_W, h: NODE_H });
    next();
  }
  const columns = side.length === 0 ? 0 : col + (row > 0 ? 1 : 0);
  return { width: columns === 0 ? 0 : columns * NODE_W + (columns - 1) * COL_GAP, rows: col > 0 ? MAX_ROWS : row };
}

/** A destination, or a node only ever called: drawn on the right of its cluster. */
function onRight(node: GraphNode, sources: ReadonlySet<string>): boolean {
  return node.kind === "destination" || (node.kind !== "workload" && !sources.has(node.id));
}

/** Where each node and edge goes; the same nodes and edges in any order give the same layout. */
export function layoutGraph(nodes: readonly GraphNode[], edges: readonly GraphEdge[]): GraphLayout {
  const out: GraphLayout = { width: 0, height: 0, groups: [], headings: [], nodes: [], edges: [] };
  const sources = new Set(edges.map((e) => e.source));
  const groups = new Map<string, GraphNode[]>();
  for (const n of nodes) groups.set(groupOf(n), [...(groups.get(groupOf(n)) ?? []), n]);
  const names = [...groups.keys()].sort((a, b) => groupRank(a) - groupRank(b) || a.localeCompare(b));
  let x = PAD;
  let height = 0;
  for (const name of names) {
    const members = groups.get(name) ?? [];
    const y = PAD + GROUP_HEAD;
    const left = placeSide(
      members.filter((n) => !onRight(n, sources)),
      x + PAD,
      y,
      out,
    );
    const rightX = x + PAD + (left.width > 0 ? left.width + SIDE_GAP : 0);
    const right = placeSide(
      members.filter((n) => onRight(n, sources)),
      rightX,
      y,
      out,
    );
    const w = rightX - x + right.width + PAD;
    const h = GROUP_HEAD + Math.max(left.rows, right.rows) * ROW_H + PAD;
    out.groups.push({ name, x, y: PAD, w, h });
    height = Math.max(height, PAD + h);
    x += w + GROUP_GAP;
  }
  const placed = new Map(out.nodes.map((p) => [p.node.id, p]));
  const sorted = [...edges].sort((a, b) => a.source.localeCompare(b.source) || a.target.localeCompare(b.target) || a.protocol.localeCompare(b.protocol));
  for (const edge of sorted) {
    const s = placed.get(edge.source);
    const t = placed.get(edge.target);
    if (!s || !t) continue;
    // A call into a cluster drawn further left leaves its caller's left side and enters the destination's right.
    const back = t.x + t.w < s.x;
    const x1 = back ? s.x : s.x + s.w;
    const y1 = s.y + s.h / 2;
    const x2 = back ? t.x + t.w : t.x;
    const y2 = t.y + t.h / 2;
    const bend = (back ? -1 : 1) * Math.max(50, Math.abs(x2 - x1) / 2);
    out.edges.push({ edge, d: `M${x1} ${y1}C${x1 + bend} ${y1} ${x2 - bend} ${y2} ${x2} ${y2}`, mid: { x: (x1 + x2) / 2, y: (y1 + y2) / 2 } });
  }
  out.width = Math.max(x - GROUP_GAP + PAD, 2 * PAD);
  out.height = height + PAD;
  return out;
}

export type EdgeSort = "rate" | "errors" | "p99";

/** The table's order: highest first by `by`, an absent figure last, then by source and destination. */
export function sortEdges(edges: readonly GraphEdge[], by: EdgeSort): GraphEdge[] {
  const value = (e: GraphEdge) => (by === "rate" ? e.signals.rps : by === "errors" ? e.signals.errorRatio : e.signals.p99Ms) ?? -1;
  return [...edges].sort((a, b) => value(b) - value(a) || a.source.localeCompare(b.source) || a.target.localeCompare(b.target));
}
