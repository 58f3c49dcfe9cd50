/**
 * The graph (`GET /v1/graph`, docs/api.md#golden-signals): workloads and destinations per cluster and
 * mesh, the edges between them over a window with their signals summarized, paged by edge in a stable
 * order; a page's nodes are those its edges reference.
 */
import { type GraphEdge, type GraphNode, type GraphView, type Signals, addSignals, emptySignals, summarize } from "@meshplane/core/base";
import { type OtherTraffic, type Place, type ResolvedRow, placeKey } from "./resolve";
import type { World } from "./world";

export interface GraphFilter {
  namespace?: string;
  mesh?: string;
  virtualMesh?: string;
  cluster?: string;
}

interface EdgeSum {
  key: string;
  source: GraphNode;
  target: GraphNode;
  protocol: GraphEdge["protocol"];
  crossCluster: boolean;
  signals: Signals;
}

const UNKNOWN = "unknown";

/** A node for one side of a row, with what discovery says of it. */
function nodeOf(world: World, side: "workload" | "destination", p: Place, namespace: string, name: string): GraphNode {
  const id = `${side === "workload" ? "w" : "d"}:${placeKey(p)}/${namespace}/${name}`;
  const unknown = namespace === UNKNOWN || name === UNKNOWN;
  const node: GraphNode = {
    id,
    kind: unknown ? "unknown" : side,
    ...(p.cluster ? { cluster: p.cluster } : { istioCluster: p.istioCluster as string }),
    namespace,
    name,
  };
  if (unknown || !p.cluster) return node;
  const found = side === "workload" ? world.workload(p.cluster, namespace, name) : world.destination(p.cluster, namespace, name);
  if (!found) return node;
  const virtualMesh = world.virtualMeshOf(found.spec.mesh);
  return { ...node, resource: found.metadata.name, mesh: found.spec.mesh, ...(virtualMesh ? { virtualMesh } : {}) };
}

/** Whether a node or the other end of its edge passes each filter given. */
function passes(filter: GraphFilter, a: GraphNode, b: GraphNode): boolean {
  const either = (f: (n: GraphNode) => string | undefined, value: string | undefined) => value === undefined || f(a) === value || f(b) === value;
  return (
    either((n) => n.namespace, filter.namespace) &&
    either((n) => n.mesh, filter.mesh) &&
    either((n) => n.virtualMesh, filter.virtualMesh) &&
    either((n) => n.cluster, filter.cluster)
  );
}

/** A map's entry, made by `make` on first use. */
function entry<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** Every edge of the window, summed, in key order, and each destination node's traffic in. */
export function graphEdges(world: World, rows: readonly ResolvedRow[], other: readonly OtherTraffic[]): { edges: EdgeSum[]; into: Map<string, Signals> } {
  // Many rows (one per minute) name the same nodes and edges: the rows of one stored edge share a
  // link, whose summed edge is found once; nested maps find the rest without building a key per
  // row; an edge's key is made once, for the sort.
  const edges: EdgeSum[] = [];
  const byNodes = new Map<GraphNode, Map<GraphNode, Map<GraphEdge["protocol"], EdgeSum>>>();
  const into = new Map<string, Signals>();
  const edgeOf = (source: GraphNode, target: GraphNode, protocol: GraphEdge["protocol"], crossCluster: boolean): EdgeSum => {
    const byProtocol = entry(
      entry(byNodes, source, () => new Map()),
      target,
      () => new Map<GraphEdge["protocol"], EdgeSum>(),
    );
    return entry(byProtocol, protocol, () => {
      const made = { key: `${source.id}\u0000${target.id}\u0000${protocol}`, source, target, protocol, crossCluster, signals: emptySignals() };
      edges.push(made);
      return made;
    });
  };
  const nodes = new Map<string, Map<string, Map<string, GraphNode>>>();
  const node = (side: "workload" | "destination", p: Place, namespace: string, name: string) =>
    entry(
      entry(
        entry(nodes, `${side[0]}${placeKey(p)}`, () => new Map()),
        namespace,
        () => new Map<string, GraphNode>(),
      ),
      name,
      () => nodeOf(world, side, p, namespace, name),
    );
  const byLink = new Map<object, EdgeSum>();
  for (const r of rows) {
    let edge = byLink.get(r.link);
    if (edge === undefined) {
      edge = edgeOf(
        node("workload", r.source, r.source.namespace, r.source.workload),
        node("destination", r.destination, r.destination.namespace, r.destination.service),
        r.protocol,
        r.crossCluster,
      );
      byLink.set(r.link, edge);
    }
    addSignals(edge.signals, r.signals);
  }
  for (const o of other) {
    const source: GraphNode = { id: `other:${o.cluster}/callers`, kind: "other", cluster: o.cluster, name: "other callers" };
    const target: GraphNode = { id: `other:${o.cluster}/destinations`, kind: "other", cluster: o.cluster, name: "other destinations" };
    const edge = edgeOf(
      entry(
        entry(
          entry(nodes, `o${source.id}`, () => new Map()),
          "",
          () => new Map<string, GraphNode>(),
        ),
        "",
        () => source,
      ),
      entry(
        entry(
          entry(nodes, `o${target.id}`, () => new Map()),
          "",
          () => new Map<string, GraphNode>(),
        ),
        "",
        () => target,
      ),
      "http",
      false,
    );
    addSignals(edge.signals, o.signals);
  }
  // A destination's traffic in: its edges summed, once each rather than once per row.
  for (const edge of edges)
    addSignals(
      entry(into, edge.target.id, () => emptySignals()),
      edge.signals,
    );
  return { edges: edges.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)), into };
}

export interface GraphPageInput {
  world: World;
  rows: readonly ResolvedRow[];
  other: readonly OtherTraffic[];
  /** The window, epoch seconds. */
  from: number;
  to: number;
  filter: GraphFilter;
  limit: number;
  /** The key of the last edge of the previous page. */
  after?: string;
}

/** One page of the graph; `next`: the key of its last edge when more follow. */
export function graphPage(input: GraphPageInput): { view: Omit<GraphView, "metadata">; next?: string } {
  const seconds = input.to - input.from;
  const { edges, into } = graphEdges(input.world, input.rows, input.other);
  const wanted = edges.filter((e) => (input.after === undefined || e.key > input.after) && passes(input.filter, e.source, e.target));
  const page = wanted.slice(0, input.limit);
  const nodes = new Map<string, GraphNode>();
  for (const e of page) {
    for (const n of [e.source, e.target]) {
      if (nodes.has(n.id)) continue;
      const traffic = n.kind === "destination" || n.kind === "unknown" ? into.get(n.id) : undefined;
      nodes.set(n.id, traffic ? { ...n, signals: summarize(traffic, seconds) } : n);
    }
  }
  const view = {
    from: new Date(input.from * 1000).toISOString(),
    to: new Date(input.to * 1000).toISOString(),
    nodes: [...nodes.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    edges: page.map(
      (e): GraphEdge => ({
        source: e.source.id,
        target: e.target.id,
        protocol: e.protocol,
        crossCluster: e.crossCluster,
        ...(e.crossCluster && e.target.cluster && input.world.eastWest(e.target.cluster) ? { via: "east-west" as const } : {}),
        signals: summarize(e.signals, seconds),
      }),
    ),
  };
  const last = page[page.length - 1];
  return wanted.length > page.length && last ? { view, next: last.key } : { view };
}
