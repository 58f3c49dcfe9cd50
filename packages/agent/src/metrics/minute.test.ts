import { LATENCY_BUCKETS } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { type MinuteVectors, minuteCounts } from "./minute";
import type { Sample } from "./prometheus";
import { EDGE_LABELS, EDGE_SEPARATOR } from "./queries";

/** A sample's labels as the queries answer them: the edge's seven joined in `edge`, the rest as they are. */
const edge = (over: Record<string, string> = {}) => {
  const labels: Record<string, string> = {
    source_cluster: "east",
    source_workload_namespace: "shop",
    source_workload: "web",
    destination_cluster: "east",
    destination_service_namespace: "shop",
    destination_service_name: "api",
    request_protocol: "http",
    view: "server",
    ...over,
  };
  const rest = Object.fromEntries(Object.entries(labels).filter(([k]) => !(EDGE_LABELS as readonly string[]).includes(k)));
  return { edge: EDGE_LABELS.map((l) => labels[l] ?? "").join(EDGE_SEPARATOR), ...rest };
};
const sample = (metric: Record<string, string>, value: number): Sample => ({ metric, value });
const vectors = (v: Partial<MinuteVectors>): MinuteVectors => ({ requests: [], latency: [], sums: [], ...v });
const only = (v: Partial<MinuteVectors>, relays: Set<string> = new Set()) => {
  const counts = minuteCounts(60, vectors(v), relays);
  return { counts, edges: [...counts.edges.values()] };
};

describe("a minute's requests", () => {
  it("split by outcome into core's signals, each failure counted once", () => {
    const { edges } = only({
      requests: [
        sample(edge({ response_code: "200" }), 90),
        sample(edge({ response_code: "404" }), 4),
        sample(edge({ response_code: "503" }), 3),
        sample(edge({ response_code: "0" }), 2),
      ],
    });
    expect(edges).toHaveLength(1);
    expect(edges[0]?.signals).toMatchObject({ requests: 99, non2xx: 9, errors5xx: 3, grpcErrors: 0, failures: 5 });
  });

  it("count a gRPC status other than OK (or none) as a gRPC error and a failure, and only for gRPC", () => {
    const grpc = (status?: string) => edge({ request_protocol: "grpc", response_code: "200", ...(status ? { grpc_response_status: status } : {}) });
    const { edges } = only({ requests: [sample(grpc("0"), 50), sample(grpc("14"), 3), sample(grpc(), 1), sample(edge({ response_code: "200" }), 7)] });
    const byProtocol = Object.fromEntries(edges.map((e) => [e.edge.protocol, e.signals]));
    expect(byProtocol.grpc).toMatchObject({ requests: 54, non2xx: 0, grpcErrors: 4, failures: 4 });
    expect(byProtocol.http).toMatchObject({ requests: 7, grpcErrors: 0, failures: 0 });
  });

  it("name what Istio left unknown `unknown`, and keep the view each edge came in", () => {
    const { edges } = only({ requests: [sample(edge({ source_cluster: "", source_workload: "", view: "client", response_code: "200" }), 1)] });
    expect(edges[0]?.edge).toEqual({
      source: { cluster: "unknown", namespace: "shop", workload: "unknown" },
      destination: { cluster: "east", namespace: "shop", service: "api" },
      protocol: "http",
      view: "client",
    });
  });

  it("keep an edge whose label does not split into its seven parts under a name the report refuses", () => {
    const { edges } = only({ requests: [sample({ edge: "east|shop|a|b|east|shop|api|http", view: "server", response_code: "200" }, 1)] });
    expect(edges[0]?.edge.source.workload).toBe("east|shop|a|b|east|shop|api|http");
  });

  it("leave out values that are no counts, and count them", () => {
    const { counts, edges } = only({
      requests: [sample(edge({ response_code: "200" }), Number.NaN), sample(edge({ response_code: "500" }), -1), sample(edge({ response_code: "200" }), 2)],
    });
    expect(counts.badValues).toBe(2);
    expect(edges[0]?.signals.requests).toBe(2);
  });
});

describe("a minute's latency", () => {
  it("turns cumulative buckets of any bounds into core's per-bucket histogram", () => {
    // Prometheus 3 writes le="25.0"; a pod with its own bounds (7, 30) folds into 10 and 50.
    const rows: [string, number][] = [
      ["5.0", 2],
      ["7", 5],
      ["25.0", 15],
      ["30", 18],
      ["+Inf", 20],
    ];
    const { edges } = only({ latency: rows.map(([le, v]) => sample(edge({ le }), v)) });
    const expected = Array.from({ length: LATENCY_BUCKETS }, () => 0);
    expected[2] = 2; // ≤ 5
    expected[3] = 3; // (5, 7] → ≤ 10
    expected[4] = 10; // (7, 25]
    expected[5] = 3; // (25, 30] → ≤ 50
    expected[LATENCY_BUCKETS - 1] = 2;
    expect(edges[0]?.signals.latency).toEqual(expected);
  });

  it("takes the view the edge's requests came in", () => {
    const { edges } = only({
      requests: [sample(edge({ response_code: "200" }), 3)],
      latency: [sample(edge({ le: "+Inf", view: "client" }), 3)],
    });
    expect(edges).toHaveLength(1);
    expect(edges[0]?.signals.latency).toEqual([]);
  });
});

const tcp = (over: Record<string, string>) => edge({ request_protocol: "tcp", destination_workload_namespace: "bank", destination_workload: "vault", ...over });

describe("a minute's bytes and connections", () => {
  it("add request and response bytes, and TCP's four counters, to their edge", () => {
    const { edges } = only({
      sums: [
        sample(tcp({ m: "tcp_received_bytes" }), 2048),
        sample(tcp({ m: "tcp_sent_bytes" }), 51200),
        sample(tcp({ m: "tcp_connections_opened" }), 6),
        sample(tcp({ m: "tcp_connections_closed" }), 5),
        sample(edge({ m: "request_bytes" }), 300),
        sample(edge({ m: "response_bytes" }), 900),
      ],
    });
    const byProtocol = Object.fromEntries(edges.map((e) => [e.edge.protocol, e.signals]));
    expect(byProtocol.tcp).toMatchObject({ bytesIn: 2048, bytesOut: 51200, tcpOpened: 6, tcpClosed: 5, requests: 0 });
    expect(byProtocol.http).toMatchObject({ bytesIn: 300, bytesOut: 900 });
  });

  it("drop hops to and from a relay: ztunnel's through a waypoint, an east-west gateway's", () => {
    const relays = new Set(["bank/waypoint", "istio-system/istio-eastwestgateway"]);
    const { edges } = only(
      {
        sums: [
          sample(tcp({ m: "tcp_received_bytes", destination_workload_namespace: "bank", destination_workload: "waypoint", view: "client" }), 700),
          sample(tcp({ m: "tcp_received_bytes", source_workload_namespace: "bank", source_workload: "waypoint" }), 700),
          sample(tcp({ m: "tcp_received_bytes", source_workload_namespace: "istio-system", source_workload: "istio-eastwestgateway", view: "client" }), 90),
          sample(tcp({ m: "tcp_received_bytes" }), 10),
        ],
      },
      relays,
    );
    expect(edges.map((e) => [e.edge.source.workload, e.signals.bytesIn])).toEqual([["web", 10]]);
  });
});
