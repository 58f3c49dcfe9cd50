/**
 * `meshplane top` and `describe destination`'s signals, the bundled CLI against the real local
 * control plane: metrics reports posted as two clusters' agents (test/support/metrics-seed.ts), taken
 * in through the metrics queue and bucket on the SQS/S3 emulator, read back through `GET /v1/graph`
 * and `GET /v1/destinations/{name}/metrics` (docs/cli.md#golden-signals-top-and-describe-destination).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type Cli, buildCli } from "../support/cli";
import type { ControlPlane } from "../support/control-plane";
import {
  type Flow,
  type MetricsPlane,
  type SeedAgent,
  bookinfoEdge as edge,
  flowReports,
  recordChange,
  sampleReport,
  seedMetrics,
  startMetrics,
} from "../support/metrics-seed";

let plane: MetricsPlane;
let cp: ControlPlane;
let cli: Cli;
let env: Record<string, string>;

const MINUTE = 60;

/** A cluster of tenant acme as its agent, for seeding. */
const agent = (cluster: string, key: SeedAgent["key"]): SeedAgent => ({ tenant: "acme", cluster, key });

const run = async (args: string[]) => {
  const r = await cli.run(args, { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
};

beforeAll(async () => {
  cli = buildCli();
  plane = await startMetrics();
  cp = plane.cp;
  const admin = await cp.tenant("acme");
  env = { MESHPLANE_URL: cp.url, MESHPLANE_TOKEN: admin };

  // The change lands 20 minutes ago: the control plane's clock is set back while it is made.
  const now = Math.floor(Date.now() / 1000 / MINUTE) * MINUTE;
  const changed = now - 20 * MINUTE;
  cp.clock.now = new Date((changed + 5) * 1000);
  const east = await registeredAgent(cp, admin, "acme", "cluster-east");
  const west = await registeredAgent(cp, admin, "acme", "cluster-west");
  await east.client.discovery(discoveryOf("istio-bookinfo", "cluster-east"));
  await west.client.discovery(discoveryOf("istio-bookinfo", "cluster-west"));
  await recordChange(cp, admin, { tenant: "acme", cluster: "cluster-east", client: east.client });
  cp.clock.now = new Date();

  // From 35 minutes ago to 3 minutes ahead, so that the reads' windows, which end at the current
  // minute, are whole however long this takes: reviews fails half of west's calls from the change on.
  const minutes = Array.from({ length: 38 }, (_, i) => now - (35 - i) * MINUTE);
  const { target } = plane;
  const eastFlows: Flow[] = [
    { edge: edge("east-1", "productpage-v1", "east-1", "reviews"), requests: 120, failures: () => 0, bucket: 4 },
    { edge: edge("west-1", "productpage-v1", "east-1", "reviews"), requests: 60, failures: (start) => (start >= changed ? 30 : 0), bucket: 4 },
    { edge: edge("east-1", "reviews-v2", "east-1", "ratings"), requests: 30, failures: () => 0, bucket: 6 },
  ];
  const westFlows: Flow[] = [{ edge: edge("west-1", "productpage-v1", "west-1", "details"), requests: 600, failures: () => 0, bucket: 4 }];
  for (const r of flowReports("cluster-east", "east-1", eastFlows, minutes)) await seedMetrics(target, agent("cluster-east", east.key), r);
  for (const r of flowReports("cluster-west", "west-1", westFlows, minutes)) await seedMetrics(target, agent("cluster-west", west.key), r);
  // 1,200 more edges in namespace shop, from two clusters nothing was discovered in: more than a page.
  for (const cluster of ["cluster-load-a", "cluster-load-b"]) {
    const { key } = await registeredAgent(cp, admin, "acme", cluster);
    await seedMetrics(target, agent(cluster, key), sampleReport(cluster, [now - MINUTE, now, now + MINUTE], { edges: 600, requests: 6 }));
  }
}, 180_000);

afterAll(async () => {
  await plane?.stop();
});

describe("meshplane top", () => {
  it("lists destinations busiest first with their traffic in from every caller, and by error ratio and p99", async () => {
    const table = await run(["top", "destinations", "--namespace", "bookinfo"]);
    const lines = table.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^DESTINATION\s+CLUSTER\s+RPS\s+ERRORS\s+P50\s+P99\s+CALLERS$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 2).join(" "))).toEqual([
      "bookinfo/details cluster-west",
      "bookinfo/reviews cluster-east",
      "bookinfo/ratings cluster-east",
    ]);
    // reviews: 180 requests a minute from two callers (one in each cluster), 30 of them failing.
    expect(lines[2]).toMatch(/^bookinfo\/reviews\s+cluster-east\s+3\.00\s+16\.7%\s+\S+ms\s+\S+ms\s+2$/);
    const byErrors = await run(["top", "dest", "--namespace", "bookinfo", "--sort", "errors"]);
    expect(byErrors.split("\n")[1]).toMatch(/^bookinfo\/reviews\s/);
    const byP99 = await run(["top", "dest", "--namespace", "bookinfo", "--sort", "p99"]);
    expect(byP99.split("\n")[1]).toMatch(/^bookinfo\/ratings\s+cluster-east\s+0\.50\s+0%\s+\S+ms\s+\d+ms\s+1$/);
    const wide = await run(["top", "dest", "--namespace", "bookinfo", "-o", "wide"]);
    expect(wide.split("\n")[0]).toMatch(/CALLERS\s+REQUESTS\s+5XX\s+P90\s+IN\s+OUT\s+RESOURCE$/);
    expect(wide).toMatch(/bookinfo\/reviews\s.*\sreviews-bookinfo-cluster-east$/m);
  });

  it("lists edges, saying which cross clusters, filtered by cluster", async () => {
    const edges = await run(["top", "edges", "--namespace", "bookinfo"]);
    expect(edges.split("\n")[0]).toMatch(/^SOURCE\s+DESTINATION\s+CROSS-CLUSTER\s+RPS\s+ERRORS\s+P50\s+P99$/);
    expect(edges).toMatch(/^cluster-west\/bookinfo\/productpage-v1\s+cluster-east\/bookinfo\/reviews\s+yes\S*(?: \(east-west\))?\s+1\.00\s+50\.0%/m);
    expect(edges).toMatch(/^cluster-east\/bookinfo\/productpage-v1\s+cluster-east\/bookinfo\/reviews\s+no\s+2\.00\s+0%/m);
    const west = await run(["top", "edges", "--cluster", "cluster-west", "-o", "json"]);
    const items = (JSON.parse(west) as { items: { sourceNode: { name: string }; targetNode: { name: string }; crossCluster: boolean }[] }).items;
    expect(items.map((i) => `${i.sourceNode.name}→${i.targetNode.name} ${i.crossCluster}`).sort()).toEqual([
      "productpage-v1→details false",
      "productpage-v1→reviews true",
    ]);
  });

  it("follows the graph's pages: every edge of more than one", async () => {
    const out = parse(await run(["top", "edges", "--namespace", "shop", "-o", "yaml"])) as { from: string; to: string; items: unknown[] };
    expect(out.items).toHaveLength(1200);
    expect(Date.parse(out.to) - Date.parse(out.from)).toBe(5 * 60_000);
    const dests = JSON.parse(await run(["top", "dest", "--namespace", "shop", "-o", "json"])) as { items: { name: string; callers: number }[] };
    // 600 callers of 50 services in each of two clusters: 12 callers each.
    expect(dests.items).toHaveLength(100);
    expect(new Set(dests.items.map((d) => d.callers))).toEqual(new Set([12]));
  });

  it("says so when nothing moved, and refuses a bad window or sort before asking", async () => {
    const quiet = await cli.run(["top", "dest", "--namespace", "nothing-here"], { env });
    expect(quiet).toMatchObject({ code: 0, stdout: "", stderr: "no traffic in the last 5m\n" });
    expect(await cli.run(["top", "dest", "--window", "5 minutes"], { env })).toMatchObject({ code: 2, stderr: expect.stringContaining("--window") });
    expect(await cli.run(["top", "edges", "--sort", "bytes"], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining("rate, errors, p99, name") });
    // A window the API bounds: its answer names the parameter.
    expect(await cli.run(["top", "dest", "--window", "2d"], { env })).toMatchObject({ code: 1, stderr: expect.stringContaining("window") });
  });
});

describe("meshplane describe destination", () => {
  it("ends with its signals: rate, errors, latency, each minute, the change that reached it and the impact naming it", async () => {
    const out = await run(["describe", "dest", "reviews-bookinfo-cluster-east", "--window", "30m"]);
    const block = out.slice(out.indexOf("Signals (last 30m)"));
    expect(block).toMatch(/^ {2}Rate: {8}3\.00 req\/s, 5400 requests$/m);
    expect(block).toMatch(/^ {2}Errors: {6}\d+\.\d% failed \(5xx \d+, gRPC 0, not 2xx \d+\)$/m);
    expect(block).toMatch(/^ {2}Latency: {5}p50 \S+ms, p90 \S+ms, p99 \S+ms$/m);
    expect(block).toMatch(/^ {4}rps {7}[▁-█]{30} {2}max 3\.00$/m);
    expect(block).toMatch(/^ {4}errors {4}[▁-█]{30} {2}max 16\.7%$/m);
    expect(block).toMatch(/^ {2}Change: {6}\S+ TrafficPolicy\/reviews-timeout version \d+ reached cluster-east \(generation 2\)$/m);
    expect(block).toMatch(/^ {2}Impact: {6}error ratio of reviews-bookinfo-cluster-east rose from 0\.0% to 16\.7% after TrafficPolicy reviews-timeout/m);
    const json = JSON.parse(await run(["describe", "dest", "reviews-bookinfo-cluster-east", "-o", "json"])) as { signals: { total: { requests: number } } };
    expect(json.signals.total.requests).toBe(15 * 180);
  });

  it("says a destination had no traffic, and a bad window is usage", async () => {
    const out = await run(["describe", "dest", "details-bookinfo-cluster-east"]);
    expect(out.slice(out.indexOf("Signals (last 15m)"))).toMatch(/Rate: {8}0 req\/s, 0 requests/);
    expect(await cli.run(["describe", "dest", "details-bookinfo-cluster-east", "--window", "soon"], { env })).toMatchObject({ code: 2 });
  });
});
