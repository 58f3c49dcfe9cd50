import { readFileSync } from "node:fs";
import type { GraphEdge, GraphNode, SignalSummary } from "@meshplane/core/views";
import { describe, expect, it } from "vitest";
import { chartModel, niceTop, timeTicks } from "./chart-model";
import { MAX_ROWS, NODE_W, filterGraph, filterOptions, layoutGraph, sortEdges } from "./graph-model";
import { ERROR_SCALE, contrast, edgeWidth, errorBand, formatMs, formatRate, formatRatio } from "./signal-format";

const signals = (rps: number, errorRatio?: number, p99Ms?: number): SignalSummary => ({
  requests: Math.round(rps * 60),
  rps,
  bytesIn: 0,
  bytesOut: 0,
  tcpOpened: 0,
  tcpClosed: 0,
  ...(errorRatio === undefined ? {} : { errorRatio }),
  ...(p99Ms === undefined ? {} : { p99Ms }),
});
const workload = (cluster: string, namespace: string, name: string, more: Partial<GraphNode> = {}): GraphNode => ({
  id: `w/${cluster}/${namespace}/${name}`,
  kind: "workload",
  cluster,
  namespace,
  name,
  ...more,
});
const destination = (cluster: string, namespace: string, name: string, more: Partial<GraphNode> = {}): GraphNode => ({
  id: `d/${cluster}/${namespace}/${name}`,
  kind: "destination",
  cluster,
  namespace,
  name,
  resource: `${name}-${namespace}-${cluster}`,
  ...more,
});
const edge = (source: GraphNode, target: GraphNode, s = signals(1, 0, 20)): GraphEdge => ({
  source: source.id,
  target: target.id,
  protocol: "http",
  crossCluster: source.cluster !== target.cluster,
  ...(source.cluster !== target.cluster ? { via: "east-west" as const } : {}),
  signals: s,
});

const web = workload("east", "shop", "web", { mesh: "istiod-east", virtualMesh: "global" });
const api = destination("east", "shop", "api", { mesh: "istiod-east", virtualMesh: "global" });
const ratings = destination("west", "bookinfo", "ratings", { mesh: "istiod-west" });
const stray = { id: "i/Kubernetes/x", kind: "unknown", istioCluster: "Kubernetes", name: "unknown" } as GraphNode;
const NODES = [web, api, ratings, stray];
const EDGES = [edge(web, api, signals(12, 0.02, 80)), edge(web, ratings, signals(3, 0, 40)), edge(stray, api, signals(0.5))];

describe("the graph's layout", () => {
  it("puts each cluster in its own group, callers left of destinations, unmapped IDs after the clusters", () => {
    const l = layoutGraph(NODES, EDGES);
    expect(l.groups.map((g) => g.name)).toEqual(["east", "west", "istio:Kubernetes"]);
    const at = new Map(l.nodes.map((p) => [p.node.id, p]));
    expect((at.get(web.id)?.x ?? 0) + NODE_W).toBeLessThan(at.get(api.id)?.x ?? 0);
    expect(at.get(api.id)?.x).toBeLessThan(at.get(ratings.id)?.x ?? 0);
    expect(l.edges).toHaveLength(3);
    expect(l.headings.map((h) => h.text)).toEqual(["shop", "shop", "bookinfo", "no namespace"]);
  });
  it("draws a call into a cluster on the left from the caller's left side to the destination's right side", () => {
    const westWeb = workload("west", "shop", "web");
    const l = layoutGraph([api, westWeb], [edge(westWeb, api)]);
    const at = new Map(l.nodes.map((p) => [p.node.id, p]));
    const [start, end] = (l.edges[0]?.d.match(/^M([\d.]+) .* ([\d.]+) [\d.]+$/) ?? []).slice(1).map(Number);
    expect(start).toBe(at.get(westWeb.id)?.x);
    expect(end).toBe((at.get(api.id)?.x ?? 0) + NODE_W);
  });
  it("is the same whatever order the API gives", () => {
    expect(layoutGraph(NODES.toReversed(), EDGES.toReversed())).toEqual(layoutGraph(NODES, EDGES));
  });
  it("wraps a long side into columns and keeps 2,000 nodes inside the picture", () => {
    const many = Array.from({ length: 2000 }, (_, i) => destination(`c${i % 4}`, `ns${i % 7}`, `svc-${i}`));
    const callers = Array.from({ length: 40 }, (_, i) => workload(`c${i % 4}`, "load", `gen-${i}`));
    const edges = many.map((d, i) => edge(callers[i % 40] as GraphNode, d));
    const t0 = performance.now();
    const l = layoutGraph([...many, ...callers], edges);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(l.nodes).toHaveLength(2040);
    expect(l.edges).toHaveLength(2000);
    for (const p of l.nodes) {
      expect(p.x + p.w).toBeLessThanOrEqual(l.width);
      expect(p.y + p.h).toBeLessThanOrEqual(l.height);
    }
    const rows = new Set(l.nodes.map((p) => p.y));
    expect(rows.size).toBeLessThanOrEqual(MAX_ROWS);
    const spots = new Set(l.nodes.map((p) => `${p.x},${p.y}`));
    expect(spots.size).toBe(2040);
  });
});

describe("the graph's filters", () => {
  it("keep the edges with a matching end, and the other end with them", () => {
    const byNs = filterGraph({ nodes: NODES, edges: EDGES }, { namespace: "bookinfo" });
    expect(byNs.edges.map((e) => e.target)).toEqual([ratings.id]);
    expect(byNs.nodes.map((n) => n.id).sort()).toEqual([ratings.id, web.id].sort());
    expect(filterGraph({ nodes: NODES, edges: EDGES }, { virtualMesh: "global" }).edges).toHaveLength(3);
    expect(filterGraph({ nodes: NODES, edges: EDGES }, { cluster: "istio:Kubernetes" }).edges).toEqual([EDGES[2]]);
    expect(filterGraph({ nodes: NODES, edges: EDGES }, {}).edges).toBe(EDGES);
  });
  it("offer the values the nodes carry", () => {
    expect(filterOptions(NODES)).toEqual({
      cluster: ["east", "istio:Kubernetes", "west"],
      namespace: ["bookinfo", "shop"],
      mesh: ["istiod-east", "istiod-west"],
      virtualMesh: ["global"],
    });
  });
  it("sort the table highest first, an absent figure last", () => {
    expect(sortEdges(EDGES, "rate").map((e) => e.signals.rps)).toEqual([12, 3, 0.5]);
    expect(sortEdges(EDGES, "errors").map((e) => e.signals.errorRatio)).toEqual([0.02, 0, undefined]);
    expect(sortEdges(EDGES, "p99").map((e) => e.signals.p99Ms)).toEqual([80, 40, undefined]);
  });
});

describe("the error scale and figures", () => {
  it.each([
    [undefined, "idle"],
    [0, "ok"],
    [0.004, "low"],
    [0.01, "warn"],
    [0.049, "warn"],
    [0.05, "bad"],
    [1, "bad"],
  ] as const)("error ratio %s is band %s", (ratio, band) => expect(errorBand(ratio)).toBe(band));
  it("keeps every colour at 3:1 against the page and the panel in both themes", () => {
    for (const b of ERROR_SCALE) {
      for (const bg of ["#ffffff", "#f6f8fa"]) expect(contrast(b.light, bg), `${b.band} on ${bg}`).toBeGreaterThanOrEqual(3);
      for (const bg of ["#0d1117", "#161b22"]) expect(contrast(b.dark, bg), `${b.band} on ${bg}`).toBeGreaterThanOrEqual(3);
    }
  });
  it("declares the same colours in the stylesheet", () => {
    const css = readFileSync(new URL("./styles.css", import.meta.url), "utf8");
    for (const b of ERROR_SCALE) expect(css).toContain(`--err-${b.band}: light-dark(${b.light}, ${b.dark});`);
  });
  it("widens an edge with its rate, within bounds", () => {
    expect(edgeWidth(0)).toBe(1);
    expect(edgeWidth(100)).toBe(4);
    expect(edgeWidth(1e9)).toBe(8);
    expect(edgeWidth(10)).toBeLessThan(edgeWidth(30));
  });
  it("writes figures for people", () => {
    expect([0, 0.004, 0.42, 12.34, 2500].map(formatRate)).toEqual(["0/s", "<0.01/s", "0.42/s", "12.3/s", "2.5k/s"]);
    expect([undefined, 0, 0.0004, 0.0234].map(formatRatio)).toEqual(["—", "0%", "<0.1%", "2.3%"]);
    expect([undefined, 4.25, 120.4, 1500].map(formatMs)).toEqual(["—", "4.3 ms", "120 ms", "1.5 s"]);
  });
});

describe("the charts' geometry", () => {
  const from = Date.UTC(2026, 0, 1, 12, 0);
  const times = [0, 1, 2, 3].map((i) => from + i * 60_000);
  const chart = (values: (number | undefined)[], markers: number[] = []) =>
    chartModel({ from, to: from + 4 * 60_000, times, series: [{ name: "rps", values }], markers, minTop: 1, formatY: String, formatTime: (t) => String(t) });

  it("rounds the top of the axis up", () => {
    expect([0.3, 3, 7, 10, 12].map((v) => niceTop(v, 0))).toEqual([0.5, 5, 10, 10, 20]);
    expect(niceTop(0, 0.01)).toBe(0.01);
  });
  it("leaves a gap where there is no value and draws a lone point as a dot", () => {
    const m = chart([4, 5, undefined, 2]);
    expect(m.paths[0]?.d.match(/M/g)).toHaveLength(2);
    expect(m.paths[0]?.d).toMatch(/M[\d.]+ [\d.]+h0L[\d.]+ [\d.]+ M[\d.]+ [\d.]+h0$/);
    expect(m.yTicks.map((t) => t.label)).toEqual(["0", "2.5", "5"]);
  });
  it("places markers in the window and leaves out those outside it", () => {
    const m = chart([1, 1, 1, 1], [from + 120_000, from - 1]);
    expect(m.markers[0]).toBeCloseTo(m.plot.x + m.plot.w / 2, 0);
    expect(m.markers[1]).toBeUndefined();
  });
  it("puts time ticks on round minutes and hours", () => {
    expect(timeTicks(from + 30_000, from + 4 * 60_000)).toEqual([1, 2, 3, 4].map((i) => from + i * 60_000));
    expect(timeTicks(from, from + 48 * 3_600_000).length).toBeLessThanOrEqual(6);
  });
});
