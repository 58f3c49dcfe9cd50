import { gunzipSync } from "node:zlib";
import { METRICS_LIMITS, type MetricsEdge, emptySignals, metricsReport } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import type { EdgeCounts, MinuteCounts } from "./minute";
import { packReports } from "./pack";
import { buildReport } from "./report";

const edge = (workload: string, protocol: MetricsEdge["protocol"] = "http"): MetricsEdge => ({
  source: { cluster: "east", namespace: "shop", workload },
  destination: { cluster: "east", namespace: "shop", service: "api" },
  protocol,
  view: "server",
});
const counts = (e: MetricsEdge, over: Partial<EdgeCounts["signals"]>): [string, EdgeCounts] => [
  `${e.source.workload}/${e.protocol}`,
  { edge: e, signals: { ...emptySignals(), ...over } },
];
const minute = (start: number, ...edges: [string, EdgeCounts][]): MinuteCounts => ({ start, edges: new Map(edges), badValues: 0 });
const input = { cluster: "cluster-1", istioClusterId: "east", health: { state: "ok" as const }, maxEdges: 2, now: 1_700_000_000_000 };

describe("the report", () => {
  it("names the busiest edges over all its minutes (requests, then bytes) and sums the rest into other", () => {
    const report = buildReport({
      ...input,
      minutes: [
        minute(120, counts(edge("a"), { requests: 5, failures: 1, non2xx: 1, errors5xx: 1 }), counts(edge("b"), { requests: 1 })),
        minute(60, counts(edge("c"), { requests: 6 }), counts(edge("d", "tcp"), { bytesIn: 10, tcpOpened: 1 }), counts(edge("b"), { requests: 1 })),
      ],
    });
    expect(report.edges.map((e) => e.source.workload)).toEqual(["c", "a"]);
    expect(report.minutes.map((m) => m.start)).toEqual([60, 120]);
    expect(report.minutes[0]).toEqual({ start: 60, rows: [{ edge: 0, requests: 6 }], other: { edges: 2, requests: 1, bytesIn: 10, tcpOpened: 1 } });
    expect(report.minutes[1]).toEqual({ start: 120, rows: [{ edge: 1, requests: 5, failures: 1, non2xx: 1, errors5xx: 1 }], other: { edges: 1, requests: 1 } });
  });

  it("folds edges whose names core refuses into other, and says so in the health message", () => {
    const bad = { ...edge("a"), source: { cluster: "east", namespace: "Shop_Not_A_Name", workload: "a" } };
    const report = buildReport({ ...input, maxEdges: 10, minutes: [minute(60, counts(bad, { requests: 9 }), counts(edge("b"), { requests: 1 }))] });
    expect(report.edges.map((e) => e.source.workload)).toEqual(["b"]);
    expect(report.minutes[0]?.other).toEqual({ edges: 1, requests: 9 });
    expect(report.health).toEqual({ state: "ok", message: "1 edge(s) whose Istio labels are no Kubernetes names were summed into other" });
  });

  it("with no minutes carries the health alone", () => {
    const report = buildReport({
      ...input,
      health: { state: "unavailable", message: "Prometheus at http://p:9090 is unreachable: ECONNREFUSED" },
      minutes: [],
    });
    expect(report).toMatchObject({ edges: [], minutes: [], health: { state: "unavailable" } });
  });
});

describe("packing reports", () => {
  it("splits minutes into reports that each fit the control plane's limits", { timeout: 30_000 }, () => {
    // 1,000 edges over 6 minutes, counts that compress badly (a linear congruential sequence).
    let seed = 42;
    const noise = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    const names = Array.from({ length: METRICS_LIMITS.edges }, (_, i) => `w${i}-${((i * 2654435761) % 4294967296).toString(36)}`);
    const many = Array.from({ length: 6 }, (_, m) =>
      minute(
        60 * (m + 1),
        ...Array.from({ length: METRICS_LIMITS.edges }, (_edge, i) =>
          counts(edge(names[i] as string), {
            requests: 2_147_483_648 + noise(),
            bytesIn: noise(),
            latency: Array.from({ length: 20 }, noise),
          }),
        ),
      ),
    );
    const packs = packReports({ ...input, maxEdges: METRICS_LIMITS.edges }, many);
    expect(packs.length).toBeGreaterThan(1);
    expect(packs.flatMap((p) => p.minutes.map((m) => m.start))).toEqual(many.map((m) => m.start));
    for (const p of packs) {
      expect(p.body.length).toBeLessThanOrEqual(METRICS_LIMITS.bodyBytes);
      const json = gunzipSync(p.body);
      expect(json.length).toBeLessThanOrEqual(METRICS_LIMITS.decodedBytes);
      expect(metricsReport.safeParse(JSON.parse(json.toString())).success).toBe(true);
    }
  });

  it("sends one report of the health alone when nothing was read", () => {
    const packs = packReports({ ...input, health: { state: "unavailable", message: "down" } }, []);
    expect(packs).toHaveLength(1);
    expect(JSON.parse(gunzipSync(packs[0]?.body ?? Buffer.alloc(0)).toString())).toMatchObject({
      minutes: [],
      health: { state: "unavailable", message: "down" },
    });
  });
});
