import type { GraphEdge, GraphNode, GraphView, SignalSummary } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { emptySummary } from "./signals";
import { destinationCells, edgeCells } from "./top";
import { type DestinationRow, destinationKey, destinationRows, edgeKey, edgeRows, sortRows } from "./top-rows";

const summary = (over: Partial<SignalSummary> = {}): SignalSummary => ({ ...emptySummary(), ...over });

const web: GraphNode = { id: "w:east:shop:web", kind: "workload", cluster: "cluster-1", namespace: "shop", name: "web" };
const cron: GraphNode = { id: "w:west:shop:cron", kind: "workload", cluster: "cluster-2", namespace: "shop", name: "cron" };
const api: GraphNode = {
  id: "d:east:shop:api",
  kind: "destination",
  cluster: "cluster-1",
  namespace: "shop",
  name: "api",
  resource: "api-shop-cluster-1",
  mesh: "istiod-istio--system-cluster-1",
  signals: summary({ requests: 600, rps: 10, errorRatio: 0.01, p50Ms: 4, p90Ms: 9, p99Ms: 40 }),
};
const db: GraphNode = {
  id: "d:x:shop:db",
  kind: "destination",
  istioCluster: "x",
  namespace: "shop",
  name: "db",
  signals: summary({ requests: 60, rps: 1, errorRatio: 0.5 }),
};
const unknown: GraphNode = { id: "unknown", kind: "unknown", name: "unknown" };

const edge = (source: GraphNode, target: GraphNode, over: Partial<GraphEdge> = {}): GraphEdge => ({
  source: source.id,
  target: target.id,
  protocol: "http",
  crossCluster: source.cluster !== target.cluster,
  signals: summary({ requests: 60, rps: 1 }),
  ...over,
});
const page = (nodes: GraphNode[], edges: GraphEdge[], next?: string): GraphView => ({
  from: "2024-05-01T10:00:00Z",
  to: "2024-05-01T10:05:00Z",
  nodes,
  edges,
  metadata: next === undefined ? {} : { continue: next },
});

// Two pages: api is reached on both, so it is one row with both callers.
const pages = [
  page([web, api, db], [edge(web, api), edge(web, db, { signals: summary({ requests: 60, rps: 1, errorRatio: 0.5, p99Ms: 300 }) })], "next"),
  page(
    [cron, api, unknown],
    [
      edge(cron, api, { via: "east-west", signals: summary({ requests: 540, rps: 9, errorRatio: 0 }) }),
      edge(cron, unknown, { signals: summary({ requests: 30, rps: 0.5, errorRatio: 0.2 }) }),
      edge(web, unknown, { signals: summary({ requests: 10, rps: 0.5, errorRatio: 0 }) }),
    ],
  ),
];

describe("top destinations", () => {
  const rows = destinationRows(pages);
  const byId = (id: string) => rows.find((r) => r.node.id === id) as DestinationRow;
  it("is one row per destination over every page, with its own signals and its distinct callers", () => {
    const api1 = rows.find((r) => r.node.id === api.id);
    expect(api1).toMatchObject({ signals: api.signals, callers: 2 });
    expect(rows.map((r) => r.node.id).sort()).toEqual([api.id, db.id, unknown.id].sort());
  });
  it("sums the edges into what Istio could not name, without quantiles", () => {
    expect(rows.find((r) => r.node.id === "unknown")?.signals).toMatchObject({ requests: 40, rps: 1, errorRatio: 0.15 });
  });
  it.each([
    ["rate", ["shop/api", "shop/db", "unknown"]],
    ["errors", ["shop/db", "unknown", "shop/api"]],
    ["p99", ["shop/api", "shop/db", "unknown"]],
    ["name", ["shop/api", "shop/db", "unknown"]],
  ] as const)("sorted by %s", (sort, names) => {
    expect(sortRows(rows, sort, (r) => r.signals, destinationKey).map((r) => destinationCells(r, false)[0])).toEqual(names);
  });
  it("prints each column, an unclaimed Istio cluster as istio:<id>, and more with -o wide", () => {
    expect(destinationCells(byId(api.id), false)).toEqual(["shop/api", "cluster-1", "10.0", "1.0%", "4.0ms", "40ms", "2"]);
    expect(destinationCells(byId(db.id), false)).toEqual(["shop/db", "istio:x", "1.00", "50.0%", "-", "-", "1"]);
    expect(destinationCells(byId(api.id), true).slice(7)).toEqual(["600", "0", "9.0ms", "0B", "0B", "api-shop-cluster-1"]);
  });
  it("escapes control characters in names from a cluster", () => {
    const evil = { ...api, id: "e", name: "api\u001b[2J" };
    const [row] = destinationRows([page([web, evil], [edge(web, evil)])]);
    expect(destinationCells(row as (typeof rows)[number], false)[0]).toBe("shop/api\\x1b[2J");
  });
});

describe("top edges", () => {
  const rows = edgeRows(pages);
  it("is every edge of every page, named cluster/namespace/name, saying which cross clusters and how", () => {
    expect(sortRows(rows, "rate", (r) => r.edge.signals, edgeKey).map((r) => edgeCells(r, false).slice(0, 4))).toEqual([
      ["cluster-2/shop/cron", "cluster-1/shop/api", "yes (east-west)", "9.00"],
      ["cluster-1/shop/web", "cluster-1/shop/api", "no", "1.00"],
      ["cluster-1/shop/web", "istio:x/shop/db", "yes", "1.00"],
      ["cluster-1/shop/web", "unknown", "yes", "0.50"],
      ["cluster-2/shop/cron", "unknown", "yes", "0.50"],
    ]);
  });
  it("sorts by p99 with the untimed last, and -o wide adds the protocol and counts", () => {
    const byP99 = sortRows(rows, "p99", (r) => r.edge.signals, edgeKey);
    expect(edgeCells(byP99[0] as (typeof rows)[number], false)).toEqual(["cluster-1/shop/web", "istio:x/shop/db", "yes", "1.00", "50.0%", "-", "300ms"]);
    expect(edgeCells(byP99[0] as (typeof rows)[number], true).slice(7)).toEqual(["http", "60", "0", "-", "0B", "0B"]);
  });
});
