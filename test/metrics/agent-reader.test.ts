import { gunzipSync } from "node:zlib";
import { type MetricsEdge, type MetricsReport, metricsReport, rowSignals } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetricsLoop } from "../../packages/agent/src/metrics/loop";
import { type EdgeCounts, readMinute } from "../../packages/agent/src/metrics/minute";
import { PROMETHEUS_ANSWER_LIMITS } from "../../packages/agent/src/metrics/options";
import { PrometheusClient } from "../../packages/agent/src/metrics/prometheus";
import { testLoopDeps } from "../../packages/agent/src/metrics/testing";
import type { PrometheusServer } from "../support/prometheus/server";
import { CLUSTER_OF_ID as clusterOf, MODEL_CLUSTERS as CLUSTERS, modelInPrometheus } from "./model-prometheus";
import { CLUSTER_IDS, type ClusterName, EAST_WEST_GATEWAY, type ExpectedEdge, type TrafficModel, WAYPOINT_WORKLOAD, edgeId } from "./traffic-model";

/**
 * The agent's reader against the traffic model (./traffic-model.ts) in a real Prometheus per
 * cluster: for every minute of the model, the edges the agent reads from a cluster's Prometheus —
 * each with its view — are the model's edges of that cluster, field by field: sidecar, waypoint and
 * ztunnel-only paths, the cross-cluster edge as the client sees it in cluster-1 and as the server
 * sees it in cluster-2, gRPC errors, the error burst, the latency shift and the pod restart.
 */
/** What the agent learns from discovery: the waypoint (a Gateway) and the east-west gateway (its pods' `istio` label). */
const RELAYS: Record<ClusterName, Set<string>> = {
  "cluster-1": new Set([`${EAST_WEST_GATEWAY.namespace}/${EAST_WEST_GATEWAY.workload}`]),
  "cluster-2": new Set([`bank/${WAYPOINT_WORKLOAD}`, `${EAST_WEST_GATEWAY.namespace}/${EAST_WEST_GATEWAY.workload}`]),
};

let model: TrafficModel;
let servers: Record<ClusterName, PrometheusServer>;
let stopServers = async () => {};
const clients = {} as Record<ClusterName, PrometheusClient>;

beforeAll(async () => {
  ({ model, servers, stop: stopServers } = await modelInPrometheus());
  for (const c of CLUSTERS) clients[c] = new PrometheusClient({ url: servers[c].url, auth: { type: "none" }, timeoutMs: 10_000, ...PROMETHEUS_ANSWER_LIMITS });
}, 600_000);

afterAll(() => stopServers());

/** The model's id of an edge the agent names (Istio cluster IDs mapped to cluster names). */
function modelId({ source: s, destination: d, protocol }: MetricsEdge): string {
  return edgeId({
    sourceCluster: clusterOf[s.cluster] as ClusterName,
    sourceNamespace: s.namespace,
    sourceWorkload: s.workload,
    destinationCluster: clusterOf[d.cluster] as ClusterName,
    destinationNamespace: d.namespace,
    destinationService: d.service,
    protocol,
  });
}

/** An edge the agent read, in the model's terms. */
function asModel(e: EdgeCounts): { id: string; view: string; signals: ExpectedEdge["signals"] } {
  const id = modelId(e.edge);
  const { requests, non2xx, errors5xx, grpcErrors, failures, latency, bytesIn, bytesOut, tcpOpened, tcpClosed } = e.signals;
  return { id, view: e.edge.view, signals: { requests, non2xx, errors5xx, grpcErrors, failures, latency, bytesIn, bytesOut, tcpOpened, tcpClosed } };
}

describe.each(CLUSTERS)("the agent reading %s's Prometheus", (cluster) => {
  it("gives every edge of every minute as the model computes it, each once, with its view", async () => {
    for (const minute of model.minuteStarts) {
      const read = await readMinute(clients[cluster], minute, RELAYS[cluster]);
      expect(read.badValues).toBe(0);
      const got = [...read.edges.values()].map(asModel).sort((a, b) => a.id.localeCompare(b.id));
      const want = model
        .edgesIn(cluster, minute)
        .map((e) => ({ id: edgeId(e.key), view: e.view, signals: e.signals }))
        .sort((a, b) => a.id.localeCompare(b.id));
      expect([minute - model.base, got]).toEqual([minute - model.base, want]);
    }
  });
});

const cart = (minute: number) =>
  readMinute(clients["cluster-1"], minute, RELAYS["cluster-1"]).then((m) => [...m.edges.values()].find((e) => e.edge.destination.service === "cart"));

describe("the events, as the agent reads them", () => {
  it("counts the error burst's 503s and reset streams as failures, only in its minutes", async () => {
    const { from, to } = model.events.errorBurst;
    for (const minute of model.minuteStarts) {
      const s = (await cart(minute))?.signals;
      const inBurst = minute >= from && minute < to;
      expect([minute - model.base, (s?.errors5xx ?? 0) > 0, (s?.failures ?? 0) > (s?.errors5xx ?? 0)]).toEqual([minute - model.base, inBurst, inBurst]);
    }
  });

  it("reads the minute of the pod's restart exactly: a counter that fell counts its new value", async () => {
    const at = model.events.restart.at;
    const read = await readMinute(clients["cluster-1"], at, RELAYS["cluster-1"]);
    const frontend = [...read.edges.values()].find((e) => e.edge.destination.service === "frontend");
    const expected = model.edgesIn("cluster-1", at).find((e) => e.key.destinationService === "frontend");
    expect(frontend?.signals.requests).toBe(expected?.signals.requests);
    expect(frontend?.signals.requests).toBeGreaterThan(0);
  });
});

describe("the agent's reports", () => {
  it("carry the model's minutes, each edge named once, checked by core's schema", async () => {
    const sent: MetricsReport[] = [];
    const last = model.end - 60;
    const loop = new MetricsLoop(
      testLoopDeps({
        cluster: "cluster-2",
        context: () => ({ istioClusterId: CLUSTER_IDS["cluster-2"], relays: RELAYS["cluster-2"] }),
        readMinute: (start, relays) => readMinute(clients["cluster-2"], start, relays),
        post: async (body) => void sent.push(metricsReport.parse(JSON.parse(gunzipSync(body).toString()))),
        now: () => (last + 60 + 30) * 1000,
      }),
    );
    await loop.read();
    await loop.send();
    expect(sent).toHaveLength(1);
    const report = sent[0] as MetricsReport;
    expect(report.minutes.map((m) => m.start)).toEqual(model.minuteStarts.slice(-5));
    for (const m of report.minutes) {
      const want = new Map(model.edgesIn("cluster-2", m.start).map((e) => [edgeId(e.key), e.signals.requests]));
      const got = new Map(m.rows.map((r) => [modelId(report.edges[r.edge] as MetricsEdge), rowSignals(r).requests]));
      expect(got).toEqual(want);
      expect(m.other).toBeUndefined();
    }
    expect(report).toMatchObject({ cluster: "cluster-2", istioClusterId: "west", health: { state: "ok" } });
  });
});
