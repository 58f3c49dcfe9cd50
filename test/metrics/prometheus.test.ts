import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PrometheusServer, parseValue } from "../support/prometheus/server";
import { CLUSTER_OF_ID as clusterOf, MODEL_CLUSTERS as CLUSTERS, modelInPrometheus } from "./model-prometheus";
import {
  type ClusterName,
  EAST_WEST_GATEWAY,
  type EdgeKey,
  type ExpectedSignals,
  LE_LABELS,
  type TrafficModel,
  WAYPOINT_WORKLOAD,
  edgeId,
} from "./traffic-model";

/**
 * The traffic model (./traffic-model.ts) loaded into a real Prometheus per cluster by remote write:
 * what PromQL reads back at explicit times is what the model says it should be. `increase(…[1m] anchored)`
 * (Prometheus 3.16: the last sample at or before the window's start, no extrapolation) gives a minute's
 * exact increase, a counter reset included; "server view, else client view" is the `or` of two sums.
 */
const BY =
  "source_cluster, source_workload_namespace, source_workload, destination_cluster, destination_service_namespace, destination_service_name, request_protocol";
/** ztunnel's hops to and from a waypoint, and the east-west gateway's hop: not edges. */
const NOT_HOPS = `source_workload!~"${WAYPOINT_WORKLOAD}|${EAST_WEST_GATEWAY.workload}", destination_workload!="${WAYPOINT_WORKLOAD}"`;

const increase = (metric: string, matchers: string, by = BY) => `sum by (${by}) (increase(${metric}{${matchers}}[1m] anchored))`;
/** Each request once: the server side's series (sidecar `destination`, waypoint), else the client's. */
const deduped = (metric: string, matchers = "", by = BY) =>
  `${increase(metric, `reporter=~"destination|waypoint"${matchers ? `, ${matchers}` : ""}`, by)} or ${increase(metric, `reporter="source"${matchers ? `, ${matchers}` : ""}`, by)}`;

function keyOf(metric: Record<string, string>): EdgeKey {
  return {
    sourceCluster: clusterOf[metric.source_cluster ?? ""] as ClusterName,
    sourceNamespace: metric.source_workload_namespace ?? "",
    sourceWorkload: metric.source_workload ?? "",
    destinationCluster: clusterOf[metric.destination_cluster ?? ""] as ClusterName,
    destinationNamespace: metric.destination_service_namespace ?? "",
    destinationService: metric.destination_service_name ?? "",
    protocol: metric.request_protocol as EdgeKey["protocol"],
  };
}

let model: TrafficModel;
let servers: Record<ClusterName, PrometheusServer>;
let stopServers = async () => {};

beforeAll(async () => {
  ({ model, servers, stop: stopServers } = await modelInPrometheus());
}, 600_000);

afterAll(() => stopServers());

/** Per minute start, per edge id, the query's value: one range query over the whole model. */
async function perMinute(cluster: ClusterName, promql: string): Promise<Map<number, Map<string, number>>> {
  const out = new Map<number, Map<string, number>>(model.minuteStarts.map((m) => [m, new Map()]));
  for (const series of await servers[cluster].queryRange(promql, model.base + 60, model.end, 60)) {
    for (const [t, v] of series.values) out.get(t - 60)?.set(edgeId(keyOf(series.metric)), v);
  }
  return out;
}

/** The query's values per minute and edge against one field of the model's edges in that cluster (absent = 0). */
async function expectField(cluster: ClusterName, field: Exclude<keyof ExpectedSignals, "latency">, ...queries: string[]): Promise<void> {
  const got = await Promise.all(queries.map((q) => perMinute(cluster, q)));
  for (const minute of model.minuteStarts) {
    const expected = new Map(model.edgesIn(cluster, minute).map((e) => [edgeId(e.key), e.signals[field]]));
    const actual = new Map<string, number>();
    for (const result of got) for (const [id, v] of result.get(minute) ?? []) actual.set(id, (actual.get(id) ?? 0) + v);
    for (const id of actual.keys()) expect(expected.has(id), `${cluster} ${field}: an edge the model does not have: ${id}`).toBe(true);
    for (const [id, v] of expected) expect([minute - model.base, id, actual.get(id) ?? 0]).toEqual([minute - model.base, id, v]);
  }
}

describe.each(CLUSTERS)("%s's Prometheus holds the model", (cluster) => {
  it("every series, with a scrape job's target labels and `le` as Prometheus 3 stores scraped ones", async () => {
    const [all] = await servers[cluster].query('count({__name__=~"istio_.+"})', model.end);
    expect(all?.value).toBe(model.series[cluster].length);
    const [targets] = await servers[cluster].query('count({__name__=~"istio_.+", job="kubernetes-pods", pod!="", instance!="", namespace!=""})', model.end);
    expect(targets?.value).toBe(model.series[cluster].length);
    const les = await servers[cluster].query("count by (le) (istio_request_duration_milliseconds_bucket)", model.end);
    expect(les.map((s) => s.metric.le).sort()).toEqual([...LE_LABELS].sort());
    expect(LE_LABELS).toContain("1.0");
    expect(LE_LABELS).toContain("3.6e+06");
  });

  it("requests, non-2xx, 5xx, gRPC errors and failures per edge and minute, each request once", async () => {
    await expectField(cluster, "requests", deduped("istio_requests_total"));
    await expectField(cluster, "non2xx", deduped("istio_requests_total", 'response_code!~"2.."'));
    await expectField(cluster, "errors5xx", deduped("istio_requests_total", 'response_code=~"5.."'));
    await expectField(cluster, "grpcErrors", deduped("istio_requests_total", 'request_protocol="grpc", grpc_response_status!="0"'));
    await expectField(
      cluster,
      "failures",
      deduped("istio_requests_total", 'response_code=~"5..|0"'),
      deduped("istio_requests_total", 'request_protocol="grpc", grpc_response_status!="0", response_code!~"5..|0"'),
    );
  });

  it("bytes and TCP connections per edge and minute, without ztunnel's waypoint hops or the east-west gateway's", async () => {
    await expectField(cluster, "bytesIn", deduped("istio_request_bytes_sum"), deduped("istio_tcp_received_bytes_total", NOT_HOPS));
    await expectField(cluster, "bytesOut", deduped("istio_response_bytes_sum"), deduped("istio_tcp_sent_bytes_total", NOT_HOPS));
    await expectField(cluster, "tcpOpened", deduped("istio_tcp_connections_opened_total", NOT_HOPS));
    await expectField(cluster, "tcpClosed", deduped("istio_tcp_connections_closed_total", NOT_HOPS));
  });

  it("latency buckets per edge and minute, `le` read as a number", async () => {
    const rows = await servers[cluster].queryRange(deduped("istio_request_duration_milliseconds_bucket", "", `${BY}, le`), model.base + 60, model.end, 60);
    for (const minute of model.minuteStarts) {
      for (const edge of model.edgesIn(cluster, minute).filter((e) => e.key.protocol !== "tcp")) {
        const cumulative = rows
          .filter((r) => edgeId(keyOf(r.metric)) === edgeId(edge.key))
          .map((r) => ({ le: parseValue(r.metric.le ?? ""), count: r.values.find(([t]) => t === minute + 60)?.[1] ?? 0 }))
          .sort((a, b) => a.le - b.le);
        const buckets = cumulative.map((b, i) => b.count - (i === 0 ? 0 : (cumulative[i - 1]?.count ?? 0)));
        expect([minute - model.base, edgeId(edge.key), buckets]).toEqual([minute - model.base, edgeId(edge.key), edge.signals.latency]);
      }
    }
  });

  it("the east-west gateway's TCP hop toward each cross-cluster destination", async () => {
    const gateway = `source_workload="${EAST_WEST_GATEWAY.workload}", source_workload_namespace="${EAST_WEST_GATEWAY.namespace}", reporter="source"`;
    const by = "destination_service_namespace, destination_service_name";
    const [opened, bytesIn] = await Promise.all([
      servers[cluster].queryRange(increase("istio_tcp_connections_opened_total", gateway, by), model.base + 60, model.end, 60),
      servers[cluster].queryRange(increase("istio_tcp_received_bytes_total", gateway, by), model.base + 60, model.end, 60),
    ]);
    for (const minute of model.minuteStarts) {
      const value = (rows: typeof opened, hop: { namespace: string; service: string }) =>
        rows
          .find((r) => r.metric.destination_service_namespace === hop.namespace && r.metric.destination_service_name === hop.service)
          ?.values.find(([t]) => t === minute + 60)?.[1];
      const hops = model.eastWestHopsIn(cluster, minute);
      expect(opened.length).toBe(hops.length);
      for (const hop of hops) {
        expect(value(opened, hop)).toBe(hop.signals.tcpOpened);
        expect(value(bytesIn, hop)).toBe(hop.signals.bytesIn);
      }
    }
  });
});

describe("the model", () => {
  it("counts sidecar requests twice and ztunnel's waypoint hops as connections unless a reader dedupes: the rules above are needed", async () => {
    const minute = model.base + 60;
    const naive = async (cluster: ClusterName, metric: string) =>
      (await servers[cluster].query(`sum(increase(${metric}[1m] anchored)) or vector(0)`, minute + 60))[0]?.value;
    const total = (cluster: ClusterName, field: "requests" | "tcpOpened") => model.edgesIn(cluster, minute).reduce((sum, e) => sum + e.signals[field], 0);
    for (const cluster of CLUSTERS) expect(await naive(cluster, "istio_requests_total")).toBeGreaterThan(total(cluster, "requests"));
    expect(await naive("cluster-2", "istio_tcp_connections_opened_total")).toBeGreaterThan(total("cluster-2", "tcpOpened"));
  });

  it("sees a cross-cluster edge from both clusters with the same numbers: the client's view in cluster-1, the server's in cluster-2", () => {
    for (const minute of model.minuteStarts) {
      const [client] = model.edgesIn("cluster-1", minute).filter((e) => e.crossCluster);
      const [server] = model.edgesIn("cluster-2", minute).filter((e) => e.crossCluster);
      expect(client?.view).toBe("client");
      expect(server?.view).toBe("server");
      expect(client?.signals).toEqual(server?.signals);
      expect(model.edges(minute).filter((e) => e.crossCluster)).toEqual([server]);
    }
  });

  it("puts the error burst, the latency shift and the restart where its events say", async () => {
    const { errorBurst, latencyShift, restart } = model.events;
    for (const minute of model.minuteStarts) {
      const cart = model.destinations(minute).find((d) => d.service === errorBurst.service);
      expect(cart?.signals.errors5xx !== 0).toBe(minute >= errorBurst.from && minute < errorBurst.to);
    }
    const p50 = async (at: number) =>
      (
        await servers[latencyShift.cluster].query(
          `histogram_quantile(0.5, ${increase("istio_request_duration_milliseconds_bucket", `reporter="destination", destination_service_name="${latencyShift.service}"`, "le")})`,
          at + 60,
        )
      )[0]?.value ?? Number.NaN;
    expect(await p50(latencyShift.at)).toBeGreaterThan(2 * (await p50(latencyShift.at - 60)));
    // Every series of the pod that had counted anything drops once, between the sample at `at` and the next.
    const resets = await servers[restart.cluster].query(`count(resets(istio_requests_total{pod="${restart.pod}"}[75s]) > 0)`, restart.at + 60);
    const series = await servers[restart.cluster].query(`count(istio_requests_total{pod="${restart.pod}"} > 0)`, restart.at);
    expect(resets[0]?.value).toBeGreaterThan(0);
    expect(resets[0]?.value).toBe(series[0]?.value);
  });
});
