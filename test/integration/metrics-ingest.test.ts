/**
 * Metrics reports taken in and kept (docs/observability.md#where-it-is-kept): POST /v1/agent/metrics on
 * a real control plane, the metrics queue and bucket on the SQS/S3 emulator, the ingest function's
 * handler run by the local poller's code, compaction, and the reader the read side uses.
 */
import { randomBytes } from "node:crypto";
import { constants, createGzip, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { MetricsLocal } from "../../functions/local/metrics-local";
import { HOUR_S, S3MetricsReader, S3ObjectBucket, compactDay } from "../../functions/metrics/index";
import { createLogger } from "../../functions/shared/logger";
import { S3Client } from "@aws-sdk/client-s3";
import { registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type MetricsPlane, type SeedAgent, postMetrics, sampleReport, seedMetrics, startMetrics } from "../support/metrics-seed";

let plane: MetricsPlane;
let cp: ControlPlane;
let metrics: MetricsLocal;
let admin: string;
let c1: SeedAgent;
let c2: SeedAgent;
let other: SeedAgent;
const minute = Math.floor(Date.now() / 60_000) * 60 - 600;
const target = () => plane.target;

beforeAll(async () => {
  plane = await startMetrics();
  ({ cp, metrics } = plane);
  admin = await cp.tenant("acme");
  const globexAdmin = await cp.tenant("globex");
  c1 = { tenant: "acme", cluster: "c1", key: (await registeredAgent(cp, admin, "acme", "c1")).key };
  c2 = { tenant: "acme", cluster: "c2", key: (await registeredAgent(cp, admin, "acme", "c2")).key };
  other = { tenant: "globex", cluster: "g1", key: (await registeredAgent(cp, globexAdmin, "globex", "g1")).key };
});
afterAll(async () => {
  await plane?.stop();
});

const clusterMetrics = async (name: string) =>
  ((await (await cp.request("GET", `/v1/clusters/${name}`, { token: admin })).json()) as { metrics?: { state: string; message?: string } }).metrics;

describe("a good report", () => {
  it("is readable with exact counts, and the cluster's metrics health says ok", async () => {
    await seedMetrics(target(), c1, sampleReport("c1", [minute, minute + 60], { requests: 120, failures: 3 }));
    const buckets = await metrics.api.buckets("acme", minute, minute + 120);
    expect(buckets.map((b) => [b.cluster, b.start, b.seconds, b.rows.length])).toEqual([
      ["c1", minute, 60, 3],
      ["c1", minute + 60, 60, 3],
    ]);
    const row = buckets[0]?.rows.find((r) => r.edge.source.workload === "caller-1");
    expect(row?.signals).toMatchObject({ requests: 120, non2xx: 3, errors5xx: 3, failures: 3, grpcErrors: 0 });
    expect(row?.signals.latency[4]).toBe(120);
    expect(await clusterMetrics("c1")).toMatchObject({ state: "ok" });
  });

  it("plain JSON is accepted as gzip is", async () => {
    const res = await postMetrics(cp.url, c2, sampleReport("c2", [minute]), { plain: true });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ accepted: true });
  });

  it("another tenant's reader sees none of it", async () => {
    expect(await metrics.api.buckets("globex", minute - 3600, minute + 3600)).toEqual([]);
  });
});

describe("refused reports", () => {
  it("a report for another cluster is 403, and the cluster's health says refused", async () => {
    const res = await postMetrics(cp.url, c1, sampleReport("c2", [minute]));
    expect(res.status).toBe(403);
    expect(await clusterMetrics("c1")).toMatchObject({ state: "refused", message: expect.stringContaining("for cluster c2") });
    // The next good report clears it.
    await seedMetrics(target(), c1, sampleReport("c1", [minute + 120]));
    expect(await clusterMetrics("c1")).toMatchObject({ state: "ok" });
  });

  it("1,000,000 edges are refused at a cap, in bounded time and memory", async () => {
    const gz = createGzip({ level: 1 });
    const chunks: Buffer[] = [];
    gz.on("data", (c: Buffer) => chunks.push(c));
    const done = new Promise((ok) => gz.on("end", ok));
    gz.write(`{"cluster":"c1","generatedAt":1,"istioClusterId":"c1","health":{"state":"ok"},"minutes":[],"edges":[`);
    for (let i = 0; i < 1_000_000; i += 1000) {
      const part = Array.from({ length: 1000 }, (_, j) =>
        JSON.stringify({
          source: { cluster: "c1", namespace: "a", workload: `w${i + j}` },
          destination: { cluster: "c1", namespace: "b", service: "s" },
          protocol: "http",
          view: "server",
        }),
      );
      gz.write(`${i === 0 ? "" : ","}${part.join(",")}`);
    }
    gz.end("]}");
    await done;
    const body = Buffer.concat(chunks);
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const res = await postMetrics(cp.url, c1, undefined, { body });
    expect(res.status).toBe(413);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  it("1,001 edges are 400 naming edges", async () => {
    const res = await postMetrics(cp.url, c1, sampleReport("c1", [], { edges: 1001 }));
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain('"path":"edges"');
  });

  it("a label value of 1 MB is 400 naming the field", async () => {
    const report = sampleReport("c1", [minute]);
    (report.edges[0] as { source: { workload: string } }).source.workload = "a".repeat(1_000_000);
    const res = await postMetrics(cp.url, c1, report);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain("edges[0].source.workload");
  });

  it.each([
    ["NaN", Number.NaN],
    ["negative", -1],
    ["fractional", 1.5],
  ])("a %s count is 400 naming it", async (_what, value) => {
    const report = sampleReport("c1", [minute]);
    ((report.minutes[0] as { rows: { requests: number }[] }).rows[0] as { requests: number }).requests = value;
    const res = await postMetrics(cp.url, c1, report);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain("minutes[0].rows[0].requests");
  });

  it("a gzip bomb is 413 naming the 4 MiB cap, decompression stopped there", async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 32), { level: constants.Z_BEST_COMPRESSION });
    expect(bomb.length).toBeLessThan(256 * 1024);
    const rss = process.memoryUsage().rss;
    const res = await postMetrics(cp.url, c1, undefined, { body: bomb });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { detail: string }).detail).toContain("4194304 bytes decompressed");
    expect(process.memoryUsage().rss - rss).toBeLessThan(64 * 1024 * 1024);
  });

  it("a body over 256 KiB as sent is 413", async () => {
    const res = await postMetrics(cp.url, c1, undefined, { body: randomBytes(300 * 1024) });
    expect(res.status).toBe(413);
  });
});

describe("one cluster's minute reported twice", () => {
  it("keeps the later report, in whatever order they arrive, and counts nothing twice", async () => {
    const m = minute - 60;
    const newer = sampleReport("c2", [m], { requests: 7, generatedAt: Date.now() });
    const older = sampleReport("c2", [m], { requests: 500, generatedAt: Date.now() - 60_000 });
    expect((await postMetrics(cp.url, c2, newer)).status).toBe(202);
    expect((await postMetrics(cp.url, c2, older)).status).toBe(202);
    expect((await postMetrics(cp.url, c2, newer)).status).toBe(202);
    await metrics.drain();
    const buckets = (await metrics.api.buckets("acme", m, m + 60)).filter((b) => b.cluster === "c2");
    expect(buckets).toHaveLength(1);
    expect(buckets[0]?.rows.map((r) => r.signals.requests)).toEqual([7, 7, 7]);
  });
});

describe("compaction", () => {
  it("hour objects give the same buckets, a rerun writes the same bytes, and day objects sum to hours", async () => {
    const before = await metrics.api.buckets("acme", minute - 120, minute + 180);
    const hours = [...new Set(before.map((b) => b.start - (b.start % HOUR_S)))];
    for (const h of hours) await metrics.compact(h);
    const s3 = new S3Client({
      region: "us-east-1",
      endpoint: inject("sqsEndpoint"),
      forcePathStyle: true,
      credentials: { accessKeyId: "l", secretAccessKey: "l" },
    });
    const bucket = new S3ObjectBucket({ s3, bucket: metrics.config.bucket });
    const key = `h/acme/${new Date((hours[0] as number) * 1000).toISOString().slice(0, 13).replace(/[-T]/g, "")}.json.gz`;
    const first = await bucket.get(key);
    expect(first).toBeDefined();
    for (const h of hours) await metrics.compact(h);
    expect(Buffer.from((await bucket.get(key)) as Uint8Array).equals(Buffer.from(first as Uint8Array))).toBe(true);
    // Read from hour objects now: the same buckets.
    expect(await metrics.api.buckets("acme", minute - 120, minute + 180)).toEqual(before);

    const day = (hours[0] as number) - ((hours[0] as number) % 86_400);
    await compactDay({ bucket, shards: metrics.config.shards, log: createLogger({}, () => {}) }, day);
    // Four days later the minutes are gone from what is read: hourly buckets from the day object.
    const later = new S3MetricsReader({ bucket, shards: metrics.config.shards, now: () => new Date((day + 5 * 86_400) * 1000) });
    const hourly = await later.buckets("acme", day, day + 86_400);
    expect(hourly.every((b) => b.seconds === 3600)).toBe(true);
    const sum = (bs: typeof before, cluster: string) =>
      bs.filter((b) => b.cluster === cluster).reduce((n, b) => n + b.rows.reduce((m, r) => m + r.signals.requests, 0), 0);
    for (const cluster of ["c1", "c2"]) expect(sum(hourly, cluster)).toBe(sum(await metrics.api.buckets("acme", day, day + 86_400), cluster));
    expect(await later.buckets("globex", day, day + 86_400)).toEqual([]);
    s3.destroy();
  });

  it("left everything else as it was: the clusters and their health", async () => {
    const res = await cp.request("GET", "/v1/clusters", { token: admin });
    const names = ((await res.json()) as { items: { name: string; metrics?: { state: string } }[] }).items.map((c) => [c.name, c.metrics?.state]);
    expect(names).toEqual([
      ["c1", "refused"],
      ["c2", "ok"],
    ]);
  });
});

describe("the metrics budget", () => {
  it("is its own: over it, reports are 429 while the agent's other calls go on", async () => {
    const limited = await startControlPlane({
      table: cp.table,
      metrics: metrics.api,
      limits: { metrics: { limit: 2, windowMs: 60_000, burst: 2, lease: 1 }, agent: { limit: 1000, windowMs: 60_000, lease: 10 } },
    });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await postMetrics(limited.url, other, sampleReport("g1", [minute]))).status);
      expect(statuses).toEqual([202, 202, 429]);
    } finally {
      await limited.stop();
    }
  });
});
