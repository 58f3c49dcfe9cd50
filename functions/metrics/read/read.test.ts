import { type Destination, type MetricsEdge, type Signals, ValidationError, emptySignals } from "@meshplane/core/base";
import { describe, expect, it } from "vitest";
import type { AppliedChanges } from "../../store/applied-changes";
import type { StoredBucket } from "../stored";
import { graphPage } from "./graph";
import { impactsIn } from "./impacts";
import { markersFor } from "./markers";
import { clusterIds, resolveRows } from "./resolve";
import { destinationSeries } from "./series";
import { timeRange } from "./window";
import { worldOf } from "./world";

const T0 = 1_800_000_000 - (1_800_000_000 % 3600);
const sig = (requests: number, failures = 0, latencyBucket?: number): Signals => {
  const s = { ...emptySignals(), requests, failures, non2xx: failures, errors5xx: failures };
  if (latencyBucket !== undefined) s.latency = Array.from({ length: 20 }, (_, i) => (i === latencyBucket ? requests : 0));
  return s;
};
const edge = (src: [string, string, string], dst: [string, string, string], view: "server" | "client" = "server"): MetricsEdge => ({
  source: { cluster: src[0], namespace: src[1], workload: src[2] },
  destination: { cluster: dst[0], namespace: dst[1], service: dst[2] },
  protocol: "http",
  view,
});
const bucket = (cluster: string, id: string, start: number, rows: [MetricsEdge, Signals][], other?: Signals): StoredBucket => ({
  start,
  seconds: 60,
  cluster,
  istioClusterId: id,
  rows: rows.map(([e, signals]) => ({ edge: e, signals })),
  ...(other ? { other: { edges: 3, signals: other } } : {}),
});
const dest = (cluster: string, namespace: string, name: string, extra: Partial<Destination["spec"]> = {}): Destination => ({
  kind: "Destination",
  metadata: { name: `${name}-${namespace}-${cluster}`, cluster },
  spec: { name, namespace, cluster, mesh: `istiod-${cluster}`, labels: {}, selector: {}, ports: [], subsets: {}, endpoints: [], workloads: [], ...extra },
});
const mesh = (cluster: string, eastWest: boolean) =>
  ({
    kind: "Mesh",
    metadata: { name: `istiod-${cluster}`, cluster },
    spec: {
      type: "istio",
      cluster,
      namespace: "istio-system",
      version: "1.27.0",
      istio: {
        trustDomain: "cluster.local",
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: false,
        gateways: eastWest
          ? [
              {
                kind: "eastwest",
                name: "eastwestgateway",
                namespace: "istio-system",
                selector: {},
                tlsPortName: "tls",
                externalPort: 15443,
                containerPort: 15443,
                addresses: [],
              },
            ]
          : [],
      },
    },
  }) as const;

const world = worldOf({
  clusters: ["east", "west"],
  meshes: [mesh("east", false), mesh("west", true)] as never,
  workloads: [],
  destinations: [dest("west", "shop", "reviews"), dest("east", "shop", "reviews"), dest("east", "shop", "ratings", { dataPlane: "ambient" })],
  virtualMeshes: [{ metadata: { name: "global" }, spec: { meshes: [{ name: "istiod-east" }, { name: "istiod-west" }] } }] as never,
});

describe("cluster IDs", () => {
  it("map an Istio cluster ID to the cluster that reports it as its own, and an ID two claim to neither", () => {
    const ids = clusterIds([bucket("east", "c1", T0, []), bucket("west", "c2", T0, []), bucket("north", "c2", T0 + 60, [])]);
    expect(ids.get("c1")).toBe("east");
    expect(ids.get("c2")).toBeNull();
  });

  it("keep the reporter's own ID its own even when claimed twice, and show a foreign unmapped ID as istio:<id>", () => {
    const { rows } = resolveRows([
      bucket("east", "Kubernetes", T0, [[edge(["Kubernetes", "shop", "web"], ["mystery", "shop", "reviews"], "client"), sig(5)]]),
      bucket("west", "Kubernetes", T0, []),
    ]);
    expect(rows[0]?.source).toEqual({ cluster: "east", namespace: "shop", workload: "web" });
    expect(rows[0]?.destination).toEqual({ istioCluster: "mystery", namespace: "shop", service: "reviews" });
    expect(rows[0]?.crossCluster).toBe(true);
  });
});

describe("dedupe", () => {
  const cross = edge(["c1", "shop", "web"], ["c2", "shop", "reviews"]);
  const client = { ...cross, view: "client" as const };
  it("keeps a cross-cluster call from the destination cluster's server side when that cluster reported the minute", () => {
    const { rows } = resolveRows([bucket("east", "c1", T0, [[client, sig(10)]]), bucket("west", "c2", T0, [[cross, sig(9)]])]);
    expect(rows.map((r) => [r.reporter, r.signals.requests])).toEqual([["west", 9]]);
  });
  it("never lets a cluster write another reporting cluster's destination, whatever view its rows claim", () => {
    // east claims a server view of west's reviews (a compromised agent): west's own rows stand alone.
    const forged = { ...cross, view: "server" as const };
    const { rows } = resolveRows([bucket("east", "c1", T0, [[forged, sig(500, 500)]]), bucket("west", "c2", T0, [[cross, sig(9)]])]);
    expect(rows.map((r) => [r.reporter, r.signals.requests])).toEqual([["west", 9]]);
  });
  it("uses the source cluster's client row for a minute the destination cluster sent nothing", () => {
    const { rows } = resolveRows([bucket("east", "c1", T0, [[client, sig(10)]]), bucket("west", "c2", T0 + 60, [[cross, sig(9)]])]);
    expect(rows.map((r) => [r.reporter, r.start, r.signals.requests])).toEqual([
      ["east", T0, 10],
      ["west", T0 + 60, 9],
    ]);
  });
});

/** The parameter a refusal names. */
const refused = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as ValidationError).errors[0]?.path;
  }
  return undefined;
};

describe("windows and steps", () => {
  const now = new Date((T0 + 3600 + 30) * 1000);
  it("ends at the current minute and cuts the window in steps", () => {
    expect(timeRange(now, 3600, 30 * 86_400, 60)).toEqual({ from: T0, to: T0 + 3600, step: 60 });
    expect(timeRange(now, 30 * 86_400, 30 * 86_400).step).toBe(3600);
  });
  it("refuses, naming the parameter, a window too long, a step under a minute, not dividing, too many points, or finer than the hourly roll-ups", () => {
    expect(refused(() => timeRange(now, 31 * 86_400, 30 * 86_400))).toBe("query.window");
    expect(refused(() => timeRange(now, 3600, 86_400, 30))).toBe("query.step");
    expect(refused(() => timeRange(now, 3600, 86_400, 420))).toBe("query.step");
    expect(refused(() => timeRange(now, 2 * 86_400, 3 * 86_400, 60))).toBe("query.step");
    expect(refused(() => timeRange(now, 7 * 86_400, 30 * 86_400, 600))).toBe("query.step");
  });
});

const change = (
  at: number,
  kind: AppliedChanges["changes"][number]["kind"],
  name: string,
  selects: { destinations?: string[]; meshes?: string[] },
): AppliedChanges => ({
  cluster: "east",
  generation: 7,
  at: new Date(at * 1000).toISOString(),
  changes: [{ kind, name, version: 2, ...selects }],
});

describe("markers", () => {
  it("put a policy's change on the destinations it selects and a VirtualMesh's on its members' destinations", () => {
    const d = dest("west", "shop", "reviews");
    const records = [
      change(T0, "TrafficPolicy", "retries", { destinations: [d.metadata.name] }),
      change(T0 + 60, "AccessPolicy", "other", { destinations: ["ratings-shop-east"] }),
      change(T0 + 120, "VirtualMesh", "global", { meshes: ["istiod-west"] }),
    ];
    expect(markersFor({ name: d.metadata.name, mesh: d.spec.mesh }, records).map((m) => m.name)).toEqual(["retries", "global"]);
  });
});

describe("a destination's series", () => {
  const into = edge(["c1", "shop", "web"], ["c2", "shop", "reviews"]);
  const local = edge(["c1", "shop", "web"], ["c1", "shop", "reviews"]);
  const buckets: StoredBucket[] = [];
  for (let m = 0; m < 60; m++) {
    const errors = m >= 30 ? 5 : 0;
    buckets.push(bucket("west", "c2", T0 + m * 60, [[into, sig(10, errors, 6)]]));
    buckets.push(bucket("east", "c1", T0 + m * 60, [[local, sig(4)]]));
  }
  const range = { from: T0, to: T0 + 3600, step: 600 };
  const d = world.destination("west", "shop", "reviews") as Destination;
  const records = [change(T0 + 30 * 60 + 10, "TrafficPolicy", "retries", { destinations: [d.metadata.name] })];
  const series = destinationSeries({
    destination: d,
    world,
    rows: resolveRows(buckets).rows,
    range,
    records,
    reporting: new Set(["west"]),
    health: new Map([["west", { state: "partial" as const, message: "timeout" }]]),
  });

  it("sums the traffic into it per step, over the whole window, and combines the same service of other clusters", () => {
    expect(series.points).toHaveLength(6);
    expect(series.points.map((p) => p.requests)).toEqual([100, 100, 100, 100, 100, 100]);
    expect(series.total.requests).toBe(600);
    expect(series.combined?.clusters).toEqual(["west", "east"]);
    expect(series.combined?.points.map((p) => p.requests)).toEqual([140, 140, 140, 140, 140, 140]);
  });

  it("names the change after which its errors rose, and says what it cannot show", () => {
    expect(series.markers.map((m) => m.name)).toEqual(["retries"]);
    expect(series.impacts.map((i) => [i.signal, i.before, i.after])).toEqual([["errorRatio", 0, 0.5]]);
    expect(series.notes).toEqual(["cluster west reads its Prometheus in part: timeout", "cluster east sent no metrics in this window"]);
  });

  it("lists the impact among the tenant's", () => {
    const impacts = impactsIn(world, resolveRows(buckets).rows, records, T0, T0 + 3600);
    expect(impacts.map((i) => i.destination)).toEqual([d.metadata.name]);
  });

  it("says an ambient destination without a waypoint has TCP only", () => {
    const ratings = world.destination("east", "shop", "ratings") as Destination;
    const notes = destinationSeries({ destination: ratings, world, rows: [], range, records: [], reporting: new Set(["east"]), health: new Map() }).notes;
    expect(notes[0]).toMatch(/^TCP only: ztunnel reports no requests/);
  });
});

describe("the graph", () => {
  const buckets = [
    bucket(
      "west",
      "c2",
      T0,
      [
        [edge(["c1", "shop", "web"], ["c2", "shop", "reviews"]), sig(10)],
        [edge(["c2", "shop", "api"], ["c2", "shop", "reviews"]), sig(5)],
        [edge(["unknown", "unknown", "unknown"], ["c2", "shop", "reviews"]), sig(1)],
      ],
      sig(7),
    ),
    bucket("east", "c1", T0, [[edge(["c1", "ops", "cron"], ["c1", "shop", "reviews"]), sig(2)]]),
  ];
  const { rows, other } = resolveRows(buckets);
  const page = (limit: number, extra: Partial<Parameters<typeof graphPage>[0]> = {}) =>
    graphPage({ world, rows, other, from: T0, to: T0 + 300, filter: {}, limit, ...extra });

  it("marks cross-cluster edges, east-west where the destination's cluster has the gateway, and names what Istio could not", () => {
    const { view } = page(100);
    const cross = view.edges.find((e) => e.source === "w:east/shop/web");
    expect(cross).toMatchObject({ target: "d:west/shop/reviews", crossCluster: true, via: "east-west" });
    expect(view.nodes.find((n) => n.id === "d:west/shop/reviews")).toMatchObject({
      kind: "destination",
      resource: "reviews-shop-west",
      mesh: "istiod-west",
      virtualMesh: "global",
      signals: { requests: 16 },
    });
    expect(view.nodes.find((n) => n.id === "w:istio:unknown/unknown/unknown")?.kind).toBe("unknown");
    expect(view.nodes.filter((n) => n.kind === "other").map((n) => n.cluster)).toEqual(["west", "west"]);
  });

  it("pages by edge in a stable order, each page with the nodes its edges reference, and filters by either end", () => {
    const first = page(2);
    const second = page(2, { after: first.next as string });
    const third = page(2, { after: second.next as string });
    const all = page(100).view.edges.map((e) => `${e.source}>${e.target}`);
    expect([...first.view.edges, ...second.view.edges, ...third.view.edges].map((e) => `${e.source}>${e.target}`)).toEqual(all);
    expect(third.next).toBeUndefined();
    for (const p of [first, second]) expect(new Set(p.view.nodes.map((n) => n.id))).toEqual(new Set(p.view.edges.flatMap((e) => [e.source, e.target])));
    expect(page(100, { filter: { namespace: "ops" } }).view.edges.map((e) => e.source)).toEqual(["w:east/ops/cron"]);
    expect(page(100, { filter: { cluster: "east" } }).view.edges).toHaveLength(2);
  });
});

describe("an edge over many minutes", () => {
  it("sums one edge once whether its minutes share the stored edge object or come from reports of their own", () => {
    const shared = edge(["c1", "shop", "web"], ["c1", "shop", "reviews"]);
    const buckets = [
      bucket("east", "c1", T0, [[shared, sig(1)]]),
      bucket("east", "c1", T0 + 60, [[shared, sig(2)]]),
      bucket("east", "c1", T0 + 120, [[{ ...shared }, sig(4)]]),
      // A call from west's web, as east's side (the destination's) reports it; west's report maps c2 to west.
      bucket("east", "c1", T0 + 180, [[{ ...shared, source: { ...shared.source, cluster: "c2" } }, sig(8)]]),
      bucket("west", "c2", T0, []),
    ];
    const { rows, other } = resolveRows(buckets);
    expect(rows[0]?.link).toBe(rows[1]?.link);
    expect(rows[0]?.source).toBe(rows[1]?.source);
    const { view } = graphPage({ world, rows, other, from: T0, to: T0 + 300, filter: {}, limit: 10 });
    expect(view.edges.map((e) => [e.source, e.target, e.signals.requests])).toEqual([
      ["w:east/shop/web", "d:east/shop/reviews", 7],
      ["w:west/shop/web", "d:east/shop/reviews", 8],
    ]);
  });
});
