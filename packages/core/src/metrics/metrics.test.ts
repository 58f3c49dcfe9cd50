import { describe, expect, it } from "vitest";
import { IMPACT_RULE, findImpact } from "./impact";
import { METRICS_LIMITS, metricsReport } from "./report";
import { LATENCY_BOUNDS_MS, LATENCY_BUCKETS, addSignals, emptySignals, latencyBucketIndex, latencyQuantileMs } from "./signals";
import { rowSignals, summarize } from "./summary";
import type { ChangeMarker } from "./views";

const histogram = (entries: Record<number, number>) => {
  const h = Array.from({ length: LATENCY_BUCKETS }, () => 0);
  for (const [i, c] of Object.entries(entries)) h[Number(i)] = c;
  return h;
};

describe("latency quantiles", () => {
  it("interpolates inside the bucket, as histogram_quantile does", () => {
    // 100 requests in (10, 25]: the median is halfway.
    expect(latencyQuantileMs(histogram({ 4: 100 }), 0.5)).toBeCloseTo(17.5);
    // 50 in [0, 0.5], 50 in (25, 50]: p99 is 98% of the way through the second bucket.
    expect(latencyQuantileMs(histogram({ 0: 50, 5: 50 }), 0.99)).toBeCloseTo(25 + 25 * 0.98);
    expect(latencyQuantileMs(histogram({ 0: 50, 5: 50 }), 0.5)).toBeCloseTo(0.5);
  });
  it("answers the highest bound above every bound, and nothing for an empty histogram", () => {
    expect(latencyQuantileMs(histogram({ [LATENCY_BUCKETS - 1]: 3 }), 0.5)).toBe(3600000);
    expect(latencyQuantileMs(histogram({}), 0.5)).toBeUndefined();
    expect(latencyQuantileMs([], 0.5)).toBeUndefined();
  });
  it("folds a bound into the first default bound at or above it", () => {
    expect(latencyBucketIndex(1)).toBe(1);
    expect(latencyBucketIndex(7)).toBe(3);
    expect(latencyBucketIndex(0.1)).toBe(0);
    expect(latencyBucketIndex(Number.POSITIVE_INFINITY)).toBe(LATENCY_BOUNDS_MS.length);
    expect(latencyBucketIndex(1e12)).toBe(LATENCY_BOUNDS_MS.length);
  });
});

describe("signals", () => {
  it("add field by field, histograms index by index", () => {
    const a = rowSignals({ requests: 10, failures: 2, latency: histogram({ 3: 10 }) });
    const b = rowSignals({ requests: 5, bytesIn: 7 });
    const total = addSignals(addSignals(emptySignals(), a), b);
    expect(total).toMatchObject({ requests: 15, failures: 2, bytesIn: 7 });
    expect(total.latency[3]).toBe(10);
    const s = summarize(total, 60);
    expect(s.rps).toBeCloseTo(0.25);
    expect(s.errorRatio).toBeCloseTo(2 / 15);
    expect(s.p50Ms).toBeCloseTo(7.5);
  });
  it("leave out what cannot be computed", () => {
    const s = summarize(rowSignals({ tcpOpened: 3 }), 60);
    expect(s.errorRatio).toBeUndefined();
    expect(s.p99Ms).toBeUndefined();
  });
});

const edge = {
  source: { cluster: "east", namespace: "shop", workload: "web" },
  destination: { cluster: "east", namespace: "shop", service: "api" },
  protocol: "http" as const,
  view: "server" as const,
};
const report = (over: object = {}) => ({
  cluster: "cluster-1",
  generatedAt: 1_700_000_000_000,
  istioClusterId: "east",
  health: { state: "ok" },
  edges: [edge],
  minutes: [{ start: 1_700_000_040, rows: [{ edge: 0, requests: 5, failures: 1, non2xx: 1, errors5xx: 1 }] }],
  ...over,
});
const issues = (value: unknown) => {
  const r = metricsReport.safeParse(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("the report schema", () => {
  it("accepts a well-formed report", () => expect(issues(report())).toEqual([]));
  it("names the field of each bad value", () => {
    expect(issues(report({ minutes: [{ start: 1_700_000_001, rows: [] }] }))).toEqual(["minutes.0.start: must be a multiple of 60"]);
    expect(issues(report({ minutes: [{ start: 60, rows: [{ edge: 0, requests: -1 }] }] }))).toEqual(["minutes.0.rows.0.requests: must not be negative"]);
    expect(issues(report({ minutes: [{ start: 60, rows: [{ edge: 0, requests: Number.NaN }] }] }))[0]).toMatch(/^minutes\.0\.rows\.0\.requests/);
    expect(issues(report({ minutes: [{ start: 60, rows: [{ edge: 3, requests: 1 }] }] }))).toEqual(["minutes.0.rows.0.edge: names no edge of the report"]);
    expect(issues(report({ minutes: [{ start: 60, rows: [{ edge: 0, requests: 1, failures: 2 }] }] }))).toEqual([
      "minutes.0.rows.0.failures: must not exceed requests",
    ]);
    expect(issues(report({ edges: [edge, edge] }))).toEqual(["edges.1: repeats an earlier edge"]);
  });
  it("refuses names that are not Kubernetes names, and long values", () => {
    const bad = { ...edge, source: { ...edge.source, workload: `a${"x".repeat(1_000_000)}` } };
    expect(issues(report({ edges: [bad] }))[0]).toMatch(/^edges\.0\.source\.workload: must be at most 253/);
    const html = { ...edge, destination: { ...edge.destination, service: "<script>" } };
    expect(issues(report({ edges: [html] }))[0]).toMatch(/^edges\.0\.destination\.service: must be a DNS-1123 label/);
  });
  it("bounds the edges and minutes", () => {
    const many = Array.from({ length: METRICS_LIMITS.edges + 1 }, (_, i) => ({ ...edge, source: { ...edge.source, workload: `w${i}` } }));
    expect(issues(report({ edges: many, minutes: [] }))).toContain(`edges: must have at most ${METRICS_LIMITS.edges} edges`);
  });
});

const marker = (at: number, name = "reviews-timeout"): ChangeMarker => ({
  at: new Date(at * 1000).toISOString(),
  kind: "TrafficPolicy",
  name,
  version: 3,
  cluster: "cluster-1",
  generation: 7,
});
const minutes = (from: number, count: number, requests: number, failures: number, bucket = 4) =>
  Array.from({ length: count }, (_, i): [number, ReturnType<typeof rowSignals>] => [
    from + i * 60,
    rowSignals({ requests, failures, non2xx: failures, errors5xx: failures, latency: histogram({ [bucket]: requests }) }),
  ]);

describe("change impact", () => {
  const t0 = 1_700_000_000 - (1_700_000_000 % 60);

  it("names the change after which the error ratio rose", () => {
    const series = new Map([...minutes(t0, 15, 100, 1), ...minutes(t0 + 900, 15, 100, 30)]);
    const found = findImpact("api-shop-cluster-1", series, [marker(t0 + 900 + 12)]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ signal: "errorRatio", before: 0.01, after: 0.3 });
    expect(found[0]?.message).toBe("error ratio of api-shop-cluster-1 rose from 1.0% to 30.0% after TrafficPolicy reviews-timeout version 3 on cluster-1");
  });
  it("names the change after which p99 rose", () => {
    const series = new Map([...minutes(t0, 15, 100, 0, 4), ...minutes(t0 + 900, 15, 100, 0, 8)]);
    expect(findImpact("d", series, [marker(t0 + 900)]).map((i) => i.signal)).toEqual(["p99Ms"]);
  });
  it("says nothing when traffic is steady, or too thin to judge", () => {
    expect(findImpact("d", new Map(minutes(t0, 30, 100, 1)), [marker(t0 + 900)])).toEqual([]);
    const thin = new Map([...minutes(t0, 15, 1, 0), ...minutes(t0 + 900, 15, 1, 1)]);
    expect(IMPACT_RULE.minRequests).toBeGreaterThan(15);
    expect(findImpact("d", thin, [marker(t0 + 900)])).toEqual([]);
  });
  it("judges changes of one minute together: a policy reaching two clusters at once is named on each", () => {
    const series = new Map([...minutes(t0, 15, 100, 0), ...minutes(t0 + 900, 15, 100, 40)]);
    const east = { ...marker(t0 + 905), cluster: "cluster-east" };
    const west = { ...marker(t0 + 930), cluster: "cluster-west" };
    expect(findImpact("d", series, [east, west]).map((i) => i.change.cluster)).toEqual(["cluster-east", "cluster-west"]);
  });
  it("blames the later of two changes for a burst after it", () => {
    const series = new Map([...minutes(t0, 20, 100, 0), ...minutes(t0 + 1200, 10, 100, 50)]);
    const found = findImpact("d", series, [marker(t0 + 600, "first"), marker(t0 + 1200, "second")]);
    expect(found.map((i) => i.change.name)).toEqual(["second"]);
  });
});
