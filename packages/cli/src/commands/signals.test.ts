import type { DestinationMetrics, SignalSummary } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { UsageError } from "../config";
import { printable } from "../output";
import { signalLines } from "./describe-signals";
import { bytesText, durationText, emptySummary, msText, rateText, ratioText, sparkline, stepSeconds, sumSummaries, windowSeconds } from "./signals";

const summary = (over: Partial<SignalSummary> = {}): SignalSummary => ({ ...emptySummary(), ...over });

describe("figures in a few characters", () => {
  it.each([
    [0, "0"],
    [0.004, "<0.01"],
    [0.25, "0.25"],
    [12.345, "12.3"],
    [1234.5, "1235"],
  ])("rate %s → %s", (v, text) => expect(rateText(v)).toBe(text));
  it.each([
    [undefined, "-"],
    [0, "0%"],
    [0.0004, "<0.1%"],
    [0.3, "30.0%"],
  ])("error ratio %s → %s", (v, text) => expect(ratioText(v)).toBe(text));
  it.each([
    [undefined, "-"],
    [0.5, "0.5ms"],
    [17.5, "18ms"],
    [2500, "2.50s"],
    [3_600_000, "3600.0s"],
  ])("latency %s → %s", (v, text) => expect(msText(v)).toBe(text));
  it("bytes in binary units", () => {
    expect([bytesText(512), bytesText(1536), bytesText(50 * 1024 * 1024)]).toEqual(["512B", "1.5KiB", "50MiB"]);
  });
});

describe("windows and steps", () => {
  it.each([
    ["30s", 30],
    ["5m", 300],
    ["1h", 3600],
    ["2d", 172_800],
  ])("%s is %i seconds", (w, s) => expect(windowSeconds(w)).toBe(s));
  it.each(["", "5", "0m", "-5m", "5 m", "1w", "5m\u001b[2J"])("%j is refused as usage, before anything is sent", (w) => {
    expect(() => windowSeconds(w)).toThrow(UsageError);
  });
  it("asks at most 60 points, by whole minutes, and whole hours beyond 48 h", () => {
    expect([stepSeconds(900), stepSeconds(3600), stepSeconds(6 * 3600), stepSeconds(24 * 3600), stepSeconds(7 * 86400)]).toEqual([60, 60, 360, 1440, 10_800]);
    // The step divides the window: 61 minutes in 61 points of a minute would be too many, 2 minutes leave a half.
    expect([stepSeconds(61 * 60), stepSeconds(30 * 86400)]).toEqual([61 * 60, 43_200]);
    expect([durationText(60), durationText(1440), durationText(10_800), durationText(86_400), durationText(90)]).toEqual(["1m", "24m", "3h", "1d", "90s"]);
  });
});

describe("sparklines", () => {
  it("scale from nothing to the largest value, and leave a gap where nothing was computed", () => {
    expect(sparkline([0, 1, 2, 4, 8, undefined, 8])).toBe("▁▂▃▅█ █");
    expect(sparkline([0, 0])).toBe("▁▁");
    expect(sparkline([])).toBe("");
  });
});

describe("summing summaries", () => {
  it("adds counts and rates, recomputes the error ratio, and drops quantiles", () => {
    const total = sumSummaries([summary({ requests: 100, rps: 1, errorRatio: 0.1, p99Ms: 40 }), summary({ requests: 300, rps: 5, errorRatio: 0.3 })]);
    expect(total).toMatchObject({ requests: 400, rps: 6, errorRatio: 0.25 });
    expect(total.p99Ms).toBeUndefined();
    expect(sumSummaries([]).errorRatio).toBeUndefined();
  });
});

describe("printable", () => {
  it("escapes what a terminal would act on, and leaves plain text alone", () => {
    expect(printable("reviews-v1.bookinfo")).toBe("reviews-v1.bookinfo");
    expect(printable("a\u001b[31mred\u0007\u009b\r\n")).toBe("a\\x1b[31mred\\x07\\x9b\\x0d\\x0a");
    expect(printable("evil\u202egnp.exe\u200b")).toBe("evil\\u{202e}gnp.exe\\u{200b}");
  });
});

const metrics = (over: Partial<DestinationMetrics> = {}): DestinationMetrics => ({
  destination: "reviews-bookinfo-cluster-1",
  cluster: "cluster-1",
  from: "2024-05-01T10:00:00Z",
  to: "2024-05-01T10:03:00Z",
  stepSeconds: 60,
  points: [
    { t: "2024-05-01T10:00:00Z", ...summary({ requests: 60, rps: 1, errorRatio: 0, p50Ms: 5, p99Ms: 9 }) },
    { t: "2024-05-01T10:01:00Z", ...summary() },
    { t: "2024-05-01T10:02:00Z", ...summary({ requests: 120, rps: 2, errorRatio: 0.5, p50Ms: 20, p99Ms: 90 }) },
  ],
  total: summary({ requests: 180, rps: 1, errorRatio: 1 / 3, errors5xx: 60, non2xx: 60, p50Ms: 12, p90Ms: 50, p99Ms: 88, bytesIn: 2048 }),
  markers: [
    { at: "2024-05-01T10:02:10Z", kind: "TrafficPolicy", name: "reviews-timeout", version: 3, cluster: "cluster-1", generation: 7 },
    { at: "2024-05-01T10:00:30Z", kind: "VirtualMesh", name: "global", version: 1, cluster: "cluster-1", generation: 6 },
  ],
  impacts: [],
  notes: ["no metrics from cluster-2 in this window"],
  ...over,
});

describe("the Signals block of describe destination", () => {
  it("says rate, errors, latency and bytes, draws each minute, lists the changes in time order and the notes", () => {
    const { lines, impacts } = signalLines(metrics());
    expect(lines).toEqual([
      "Rate:        1.00 req/s, 180 requests",
      "Errors:      33.3% failed (5xx 60, gRPC 0, not 2xx 60)",
      "Latency:     p50 12ms, p90 50ms, p99 88ms",
      "Bytes:       2.0KiB in, 0B out",
      "Per 1m:      2024-05-01T10:00:00Z to 2024-05-01T10:03:00Z",
      "  rps       ▅ █  max 2.00",
      "  errors    ▁ █  max 50.0%",
      "  p99       ▂ █  max 90ms",
      "Change:      2024-05-01T10:00:30Z VirtualMesh/global version 1 reached cluster-1 (generation 6)",
      "Change:      2024-05-01T10:02:10Z TrafficPolicy/reviews-timeout version 3 reached cluster-1 (generation 7)",
      "Note:        no metrics from cluster-2 in this window",
    ]);
    expect(impacts).toEqual([]);
  });

  it("names the change that hurt it, sums the service's clusters, and says TCP when that is all there is", () => {
    const m = metrics({
      total: summary({ tcpOpened: 4, tcpClosed: 3, bytesIn: 10, bytesOut: 20 }),
      points: [],
      combined: { clusters: ["cluster-1", "cluster-2"], points: [{ t: "2024-05-01T10:00:00Z", ...summary({ requests: 360, rps: 6, errorRatio: 0.5 }) }] },
      markers: [],
      notes: [],
      impacts: [
        {
          destination: "reviews-bookinfo-cluster-1",
          change: metrics().markers[0] as DestinationMetrics["markers"][number],
          signal: "errorRatio",
          before: 0.01,
          after: 0.3,
          message: "error ratio of reviews-bookinfo-cluster-1 rose from 1.0% to 30.0% after TrafficPolicy reviews-timeout version 3 on cluster-1",
        },
      ],
    });
    const { lines, impacts } = signalLines(m);
    expect(lines).toEqual([
      "Rate:        0 req/s, 0 requests",
      "TCP:         4 connections opened, 3 closed",
      "Bytes:       10B in, 20B out",
      "All clusters (cluster-1, cluster-2): 2.00 req/s, 360 requests, 50.0% failed",
    ]);
    expect(impacts).toEqual([
      "Impact:      error ratio of reviews-bookinfo-cluster-1 rose from 1.0% to 30.0% after TrafficPolicy reviews-timeout version 3 on cluster-1",
    ]);
  });

  it("escapes what the control plane passed on from a cluster", () => {
    const { lines } = signalLines(metrics({ notes: ["\u001b]0;owned\u0007"], markers: [] }));
    expect(lines.at(-1)).toBe("Note:        \\x1b]0;owned\\x07");
  });
});
