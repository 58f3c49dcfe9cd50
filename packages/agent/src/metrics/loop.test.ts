import { gunzipSync } from "node:zlib";
import { type MetricsReport, emptySignals } from "@meshplane/core";
import { ApiError } from "@meshplane/core/http-client";
import { describe, expect, it } from "vitest";
import { MetricsLoop, type MetricsLoopDeps } from "./loop";
import type { MinuteCounts } from "./minute";
import { PrometheusError } from "./prometheus";
import { testLoopDeps } from "./testing";

const T0 = 1_700_000_040_000; // a minute's start, in ms

/** A loop over a clock the test moves, a Prometheus that answers `reads`, and a control plane that answers `posts`. */
function harness(over: Partial<MetricsLoopDeps> = {}) {
  const clock = { now: T0 + 45_000 };
  const reads: number[] = [];
  const sent: MetricsReport[] = [];
  const logs: string[] = [];
  const state = { failFrom: Number.POSITIVE_INFINITY, postError: undefined as unknown };
  const loop = new MetricsLoop(
    testLoopDeps({
      readMinute: async (start) => {
        if (start >= state.failFrom) throw new PrometheusError("unreachable", "Prometheus at http://prom:9090 is unreachable: ECONNREFUSED");
        reads.push(start);
        const edge = { source: { cluster: "east", namespace: "shop", workload: "web" }, destination: { cluster: "east", namespace: "shop", service: "api" } };
        return {
          start,
          badValues: 0,
          edges: new Map([["k", { edge: { ...edge, protocol: "http" as const, view: "server" as const }, signals: { ...emptySignals(), requests: 1 } }]]),
        } satisfies MinuteCounts;
      },
      post: async (body) => {
        if (state.postError) throw state.postError;
        sent.push(JSON.parse(gunzipSync(body).toString()) as MetricsReport);
      },
      log: { info: (m) => logs.push(m), error: (m) => logs.push(m) },
      now: () => clock.now,
      ...over,
    }),
  );
  return { loop, clock, reads, sent, logs, state };
}

const minutes = (from: number, n: number) => Array.from({ length: n }, (_, i) => T0 / 1000 + (from + i) * 60);

describe("the metrics loop", () => {
  it("reads back one report's minutes at first, then each minute once it has settled", async () => {
    const h = harness();
    await h.loop.read();
    // At T0+45 s the last minute that ended 30 s ago is the one before T0.
    expect(h.reads).toEqual(minutes(-5, 5));
    h.clock.now += 60_000;
    await h.loop.read();
    await h.loop.read();
    expect(h.reads).toEqual(minutes(-5, 6));
    expect(h.loop.currentHealth()).toEqual({ state: "ok" });
  });

  it("sends what it read, gzipped, and keeps nothing sent", async () => {
    const h = harness();
    await h.loop.read();
    await h.loop.send();
    expect(h.sent).toHaveLength(1);
    expect(h.sent[0]).toMatchObject({ cluster: "cluster-1", istioClusterId: "east", health: { state: "ok" } });
    expect(h.sent[0]?.minutes.map((m) => m.start)).toEqual(minutes(-5, 5));
    expect(h.loop.unsent()).toEqual([]);
  });

  it("reads a minute Prometheus could not answer again later, and says so in the health meanwhile", async () => {
    const h = harness();
    h.state.failFrom = T0 / 1000 - 120;
    await h.loop.read();
    expect(h.loop.currentHealth()).toMatchObject({ state: "partial", message: expect.stringContaining("ECONNREFUSED") });
    h.state.failFrom = Number.POSITIVE_INFINITY;
    h.clock.now += 60_000;
    await h.loop.read();
    expect(h.reads).toEqual(minutes(-5, 6));
    expect(h.loop.currentHealth()).toEqual({ state: "ok" });
  });

  it("with Prometheus down sends a report of no minutes whose health says why", async () => {
    const h = harness();
    h.state.failFrom = 0;
    await h.loop.read();
    await h.loop.send();
    expect(h.sent[0]).toMatchObject({ minutes: [], edges: [], health: { state: "unavailable", message: expect.stringContaining("unreachable") } });
  });

  it("keeps the minutes of a report the control plane could not take, and waits at least its Retry-After", async () => {
    const h = harness();
    await h.loop.read();
    h.state.postError = new ApiError(429, "too many", [], { retryAfterSeconds: 120 });
    await h.loop.send();
    expect(h.loop.unsent()).toHaveLength(5);
    expect(h.loop.due().sendAt).toBeGreaterThanOrEqual(h.clock.now + 120_000);
    h.state.postError = undefined;
    await h.loop.send();
    expect(h.sent[0]?.minutes).toHaveLength(5);
  });

  it("drops a report the control plane refused for itself", async () => {
    const h = harness();
    await h.loop.read();
    h.state.postError = new ApiError(400, "minutes.0.start: must be a multiple of 60");
    await h.loop.send();
    expect(h.loop.unsent()).toEqual([]);
    expect(h.logs).toContain("metrics: report refused, its minutes are dropped");
  });

  it("counts minutes read, failed reads and reports sent or dropped, for the agent's /metrics", async () => {
    const counters = { minutesRead: 0, readFailures: 0, reportsSent: 0, reportsDropped: 0, reportBytes: 0 };
    const h = harness({ counters });
    h.state.failFrom = T0 / 1000 - 120;
    await h.loop.read();
    expect(counters).toMatchObject({ minutesRead: 3, readFailures: 1 });
    await h.loop.send();
    expect(counters).toMatchObject({ reportsSent: 1, reportsDropped: 0 });
    expect(counters.reportBytes).toBeGreaterThan(0);
    h.state.postError = new ApiError(403, "report for another cluster");
    await h.loop.read();
    await h.loop.send();
    expect(counters).toMatchObject({ reportsSent: 1, reportsDropped: 1 });
  });

  it("keeps at most 15 minutes, dropping the oldest with a log line", async () => {
    const h = harness();
    h.state.postError = new ApiError(503, "unavailable");
    await h.loop.read();
    h.clock.now += 20 * 60_000;
    await h.loop.read();
    expect(h.loop.unsent().map((m) => m.start)).toEqual(minutes(5, 15));
    expect(h.logs.filter((l) => l.includes("dropped")).length).toBeGreaterThan(0);
  });

  it("neither reads nor sends before discovery has listed the cluster", async () => {
    const h = harness({
      context: () => {
        throw new Error("discovery has not listed the cluster yet");
      },
    });
    await h.loop.read();
    await h.loop.send();
    expect([h.reads, h.sent]).toEqual([[], []]);
    expect(h.loop.currentHealth()).toMatchObject({ state: "unavailable" });
  });
});
