import { randomBytes } from "node:crypto";
import { type ChangeImpact, type DestinationMetrics, type GraphView, type SeriesPoint, type Signals, summarize } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { type MetricsLocal, startMetricsLocal } from "../../functions/local/metrics-local";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { type LiveTraffic, startLiveTraffic } from "../lab/live-traffic";
import { LAB_CLUSTERS } from "../lab/traffic-fixture";
import { CART, CART_CHANGE, type TrafficLab, makeChange, placeModel, startTrafficLab } from "../lab/traffic-lab";
import { type ClusterName, type ExpectedSignals, type TrafficModel, edgeId } from "../metrics/traffic-model";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { eventually } from "./lab-agents";

/**
 * Golden signals end to end, as `npm run lab` shows them (docs/observability.md#trying-it): the
 * traffic model's world in two lab kube-apiservers, the model written into a real Prometheus per
 * cluster as time passes, each cluster's agent reading its Prometheus and reporting every minute, the
 * control plane taking the reports in through its metrics queue and bucket (the SQS/S3 emulator), and
 * the API's series, graph and impacts read back. The model is placed so that the change (a
 * TrafficPolicy on cart) lands in the minute before cart's error burst; every minute the agents read
 * after it was written must be, through the API, exactly what the model computes from its traffic.
 */
let cp: ControlPlane;
let metrics: MetricsLocal;
let poller: { stop: () => Promise<void> };
let admin: string;
let lab: TrafficLab;
let traffic: LiveTraffic;
let model: TrafficModel;
/** Epoch seconds: the minute the change is made in; the one before it is the first the agents read written. */
let changeAt: number;
let changedIn: string[];

const MINUTE = 60;
const toModel = Object.fromEntries(Object.entries(LAB_CLUSTERS).map(([name, labName]) => [labName, name])) as Record<string, ClusterName>;
const destinationName = (d: { cluster: ClusterName; namespace: string; service: string }) => `${d.service}-${d.namespace}-${LAB_CLUSTERS[d.cluster]}`;

async function get<T>(path: string): Promise<T> {
  const res = await cp.request("GET", path, { token: admin });
  if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Whole minutes from the first minute read after the model was written to the current one. */
const windowMinutes = () => Math.max(1, (Math.floor(Date.now() / 60_000) * MINUTE - (changeAt - MINUTE)) / MINUTE);
const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
const first = () => changeAt - MINUTE;
const startOf = (t: string) => Date.parse(t) / 1000;
const sum = (all: ExpectedSignals[]): Signals =>
  all.reduce<Signals>(
    (into, s) => ({
      requests: into.requests + s.requests,
      non2xx: into.non2xx + s.non2xx,
      errors5xx: into.errors5xx + s.errors5xx,
      grpcErrors: into.grpcErrors + s.grpcErrors,
      failures: into.failures + s.failures,
      bytesIn: into.bytesIn + s.bytesIn,
      bytesOut: into.bytesOut + s.bytesOut,
      tcpOpened: into.tcpOpened + s.tcpOpened,
      tcpClosed: into.tcpClosed + s.tcpClosed,
      latency: s.latency.length === 0 ? into.latency : s.latency.map((c, i) => c + (into.latency[i] ?? 0)),
    }),
    { requests: 0, non2xx: 0, errors5xx: 0, grpcErrors: 0, failures: 0, bytesIn: 0, bytesOut: 0, tcpOpened: 0, tcpClosed: 0, latency: [] },
  );

/** A destination's points from the first minute read after the model was written, as far as the store has them (a minute with nothing is not yet sent). */
async function stored(name: string): Promise<{ answer: DestinationMetrics; points: SeriesPoint[] }> {
  const answer = await get<DestinationMetrics>(`/v1/destinations/${name}/metrics?window=${windowMinutes()}m&step=1m`);
  const points: SeriesPoint[] = [];
  for (const p of answer.points.filter((q) => startOf(q.t) >= first())) {
    if (p.requests === 0 && p.tcpOpened === 0 && p.bytesIn === 0) break;
    points.push(p);
  }
  return { answer, points };
}

/** The model's destinations, each with the minutes the store has of it, oldest first. */
async function storedMinutes(): Promise<Map<string, number[]>> {
  const names = model.destinations(first()).map((d) => destinationName(d));
  return new Map(await Promise.all(names.map(async (n) => [n, (await stored(n)).points.map((p) => startOf(p.t))] as [string, number[]])));
}

beforeAll(async () => {
  metrics = await startMetricsLocal({
    endpoint: inject("sqsEndpoint"),
    region: "us-east-1",
    suffix: randomBytes(4).toString("hex"),
    log: createLogger({ service: "metrics" }, () => {}),
    windowMs: 1000,
  });
  cp = await startControlPlane({ metrics: metrics.api });
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("e2e-metrics");
  lab = await startTrafficLab(cp, admin);
  ({ model, changeAt } = placeModel(Date.now()));
  traffic = await startLiveTraffic(model, lab.prometheus);
  changedIn = await makeChange(cp, admin, changeAt);
}, 600_000);

afterAll(async () => {
  await traffic?.stop();
  await lab?.stop();
  await poller?.stop();
  await cp?.stop();
  await metrics?.stop();
});

describe("golden signals from two clusters' Prometheus", () => {
  it("gives each destination's minutes as the model computes them: the burst, gRPC errors, the ambient destination's TCP and its note", async () => {
    const burst = model.events.errorBurst.from;
    // Every destination's minutes through the burst's first, then each compared with the model.
    const minutes = await eventually(
      "the burst's first minute from both clusters",
      async () => {
        const m = await storedMinutes();
        return [...m.values()].every((starts) => starts.includes(burst)) ? m : undefined;
      },
      240_000,
    );
    for (const d of model.destinations(first())) {
      const name = destinationName(d);
      const { answer, points } = await stored(name);
      expect(points.length, name).toBeGreaterThanOrEqual((minutes.get(name) ?? []).length);
      for (const p of points) {
        const want = model.destinations(startOf(p.t)).find((e) => destinationName(e) === name);
        expect({ name, ...p }).toEqual({ name, t: p.t, ...summarize(sum(want ? [want.signals] : []), MINUTE) });
      }
      if (d.service === "vault")
        expect(answer.notes).toContain("TCP only: ztunnel reports no requests (the destination is on the ambient data plane without a waypoint)");
      else expect(answer.notes, name).toEqual([]);
    }
    const cart = (await stored(CART)).points.find((p) => startOf(p.t) === burst);
    expect(cart?.errors5xx).toBeGreaterThan(0);
    const catalog = (await stored(destinationName({ cluster: "cluster-1", namespace: "shop", service: "catalog" }))).points;
    expect(catalog.every((p) => p.grpcErrors > 0)).toBe(true);
    const vault = (await stored(destinationName({ cluster: "cluster-2", namespace: "bank", service: "vault" }))).points;
    expect(vault.every((p) => p.requests === 0 && p.tcpOpened > 0 && p.p99Ms === undefined)).toBe(true);
  }, 300_000);

  it("draws the graph over the minutes kept, each edge once with the model's figures, the cross-cluster one through the east-west gateway", async () => {
    // The minutes kept may grow while the graph is read: compare only when they did not.
    const { graph, minutes } = await eventually("a graph read while the minutes kept stood still", async () => {
      const before = await storedMinutes();
      const view = await get<GraphView>(`/v1/graph?window=${windowMinutes()}m`);
      const after = await storedMinutes();
      return JSON.stringify([...before]) === JSON.stringify([...after]) ? { graph: view, minutes: after } : undefined;
    });
    const from = startOf(graph.from);
    const to = startOf(graph.to);
    const nodes = new Map(graph.nodes.map((n) => [n.id, n]));
    const got = graph.edges.map((e) => {
      const s = nodes.get(e.source);
      const t = nodes.get(e.target);
      const id = edgeId({
        sourceCluster: toModel[s?.cluster ?? ""] as ClusterName,
        sourceNamespace: s?.namespace ?? "",
        sourceWorkload: s?.name ?? "",
        destinationCluster: toModel[t?.cluster ?? ""] as ClusterName,
        destinationNamespace: t?.namespace ?? "",
        destinationService: t?.name ?? "",
        protocol: e.protocol,
      });
      return { id, crossCluster: e.crossCluster, via: e.via, signals: e.signals };
    });
    const want = model.edges(first()).map((e) => {
      const kept = (
        minutes.get(destinationName({ cluster: e.key.destinationCluster, namespace: e.key.destinationNamespace, service: e.key.destinationService })) ?? []
      ).filter((m) => m >= from && m < to);
      const signals = sum(kept.map((m) => model.edges(m).find((x) => edgeId(x.key) === edgeId(e.key))?.signals as ExpectedSignals));
      return { id: edgeId(e.key), crossCluster: e.crossCluster, via: e.crossCluster ? "east-west" : undefined, signals: summarize(signals, to - from) };
    });
    expect(got.sort(byId)).toEqual(want.sort(byId));
    expect(got.filter((e) => e.crossCluster).map((e) => e.id)).toEqual(["cluster-1/shop/frontend/cluster-2/shop/reviews/http"]);
    expect(nodes.get(graph.edges.find((e) => e.crossCluster)?.target ?? "")?.resource).toBe("reviews-shop-cluster-west");
  });

  it("names the change in the impacts once cart's error burst follows it", async () => {
    expect(changedIn).toContain(LAB_CLUSTERS["cluster-1"]);
    const impact = await eventually(
      "cart's impact",
      async () => (await get<{ impacts: ChangeImpact[] }>("/v1/metrics/impacts?window=15m")).impacts.find((i) => i.destination === CART),
      240_000,
    );
    expect(impact).toMatchObject({
      destination: CART,
      signal: "errorRatio",
      before: 0,
      change: { kind: "TrafficPolicy", name: CART_CHANGE.metadata.name, cluster: LAB_CLUSTERS["cluster-1"] },
    });
    expect(Math.floor(startOf(impact.change.at) / MINUTE) * MINUTE).toBe(changeAt);
    expect(impact.message).toMatch(
      /^error ratio of cart-shop-cluster-east rose from 0\.0% to \d+\.\d% after TrafficPolicy cart-timeout version 1 on cluster-east$/,
    );
    const series = await get<DestinationMetrics>(`/v1/destinations/${CART}/metrics?window=15m&step=1m`);
    expect(series.markers.map((m) => [m.name, m.cluster])).toContainEqual([CART_CHANGE.metadata.name, LAB_CLUSTERS["cluster-1"]]);
  }, 300_000);
});
