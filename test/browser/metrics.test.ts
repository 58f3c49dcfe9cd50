import { join } from "node:path";
import type * as Core from "@meshplane/core";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { agentKey, discoveryOf } from "../support/agents";
import { type LocalPlane, type PageWatch, artefactDir, axe, launchChromium, signIn, startLocalPlane, watch } from "../support/console-browser";
import { type SeedAgent, seedMetrics } from "../support/metrics-seed";

/**
 * Golden signals in the console (docs/console.md#the-graph): Chromium against `npm start`'s control
 * plane, a tenant of two bookinfo clusters whose agents report, through the API, a policy applied on
 * cluster-east and then real metrics reports — traffic into reviews for a quarter of an hour, a call
 * from cluster-west's productpage across clusters, and a burst of errors in the minute of the change.
 */
let plane: LocalPlane;
let browser: Browser;
let token: string;
const shots = artefactDir();
const TENANT = "signals";
const REVIEWS = "reviews-bookinfo-cluster-east";
const agents: Record<string, SeedAgent & { client: ControlPlaneClient }> = {};

async function api<T>(method: string, path: string, body?: unknown, bearer = token): Promise<T> {
  const res = await fetch(plane.url + path, {
    method,
    headers: { authorization: `Bearer ${bearer}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** Waits until `cluster`'s snapshot is past `after`, then reports it applied as the agent does; its generation. */
async function applied(cluster: string, after: number): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const { generation } = await api<{ generation: number }>("GET", `/v1/clusters/${cluster}/snapshot?objects=false`);
    if (generation > after) {
      await (agents[cluster] as { client: ControlPlaneClient }).client.status({ generation, results: [] });
      return generation;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${cluster}: no snapshot past generation ${after}`);
}

const edge = (fromCluster: string, workload: string, toCluster: string, service: string) => ({
  source: { cluster: fromCluster, namespace: "bookinfo", workload },
  destination: { cluster: toCluster, namespace: "bookinfo", service },
  protocol: "http" as const,
  view: "server" as const,
});
const latency = (n: number, bucket: number) => Array.from({ length: 20 }, (_, i) => (i === bucket ? n : 0));

/** Fifteen minutes up to `minute`: steady traffic, then `burst` failures of 100 requests in `minute` itself. */
function report(cluster: string, istioClusterId: string, edges: ReturnType<typeof edge>[], minute: number, burst: number): Core.MetricsReport {
  return {
    cluster,
    generatedAt: Date.now(),
    istioClusterId,
    health: { state: "ok" },
    edges,
    minutes: Array.from({ length: 15 }, (_, k) => {
      const start = minute - (14 - k) * 60;
      const now = start === minute;
      return {
        start,
        rows: edges.map((_e, i) => {
          const requests = now && i === 0 ? 100 : 30;
          const failures = now && i === 0 ? burst : 0;
          return { edge: i, requests, non2xx: failures, errors5xx: failures, failures, latency: latency(requests, now && i === 0 ? 7 : 4) };
        }),
      };
    }),
  };
}

beforeAll(async () => {
  plane = await startLocalPlane();
  browser = await launchChromium();
  token = (await api<{ adminToken: string }>("POST", "/v1/tenants", { name: TENANT }, plane.operatorToken)).adminToken;
  for (const cluster of ["cluster-east", "cluster-west"]) {
    const { bootstrapToken } = await api<{ bootstrapToken: string }>("POST", "/v1/clusters", { name: cluster });
    const key = await agentKey();
    await ControlPlaneClient.register(plane.url, bootstrapToken, key.publicJwk, "metrics-test");
    const client = new ControlPlaneClient({ url: plane.url, tenant: TENANT, cluster, key, now: () => new Date() });
    await client.discovery(discoveryOf("istio-bookinfo", cluster) as never);
    agents[cluster] = { tenant: TENANT, cluster, key, client };
  }
  // The first generation applied is each cluster's baseline; the policy's, on east, is a change.
  const east = await applied("cluster-east", 0);
  await applied("cluster-west", 0);
  await api("POST", "/v1/trafficpolicies", {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name: "reviews-timeout" },
    spec: {
      destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-east", namespace: "bookinfo", name: "reviews" }] } }],
      policy: { requestTimeout: "1s" },
    },
  });
  // The change is recorded from what the policy's status says reached the cluster: wait for it first.
  let carried = 0;
  for (let i = 0; i < 200 && carried <= east; i++) {
    const policy = await api<{ status?: { clusters?: Record<string, { generation: number }> } }>("GET", "/v1/trafficpolicies/reviews-timeout");
    carried = policy.status?.clusters?.["cluster-east"]?.generation ?? 0;
    if (carried <= east) await new Promise((r) => setTimeout(r, 100));
  }
  await applied("cluster-east", carried - 1);
  const minute = Math.floor(Date.now() / 60_000) * 60;
  const eastEdges = [
    edge("east-1", "productpage-v1", "east-1", "reviews"),
    edge("west-1", "productpage-v1", "east-1", "reviews"),
    edge("east-1", "reviews-v3", "east-1", "ratings"),
  ];
  // Readable once the minutes before the current one show in the graph.
  const readable = async () => (await api<Core.GraphView>("GET", "/v1/graph?window=15m")).edges.length >= 4;
  await seedMetrics({ url: plane.url }, agents["cluster-east"] as SeedAgent, report("cluster-east", "east-1", eastEdges, minute, 40));
  await seedMetrics(
    { url: plane.url, readable },
    agents["cluster-west"] as SeedAgent,
    report("cluster-west", "west-1", [edge("west-1", "productpage-v1", "west-1", "details")], minute, 0),
  );
  // Reads end at the start of the current minute: the burst's minute is read once it is over.
  await new Promise((r) => setTimeout(r, Math.max(0, (minute + 61) * 1000 - Date.now())));
});
afterAll(async () => {
  await browser?.close();
  await plane?.stop();
});

async function fresh(): Promise<{ context: BrowserContext; page: Page; seen: PageWatch }> {
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 }, colorScheme: "light" });
  const page = await context.newPage();
  const seen = watch(page, plane.url);
  await signIn(page, plane.url, token);
  return { context, page, seen };
}

async function accessible(page: Page): Promise<void> {
  const violations = (await axe(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(violations, JSON.stringify(violations, null, 2)).toEqual([]);
}

const clean = (seen: PageWatch) => {
  expect(seen.violations, "Content-Security-Policy violations").toEqual([]);
  expect(seen.errors, "script errors").toEqual([]);
  expect(seen.foreignRequests, "requests to other origins").toEqual([]);
};

/** A node as the table writes it: namespace/name, then its cluster. */
const end = (n: Core.GraphNode | undefined) => `${n?.namespace ? `${n.namespace}/` : ""}${n?.name} ${n?.cluster ?? `istio:${n?.istioCluster}`}`;

describe("golden signals in the console", () => {
  it("graph: the reported nodes and edges, the same edges in the table, errors and the cross-cluster call marked", async () => {
    const view = await api<Core.GraphView>("GET", "/v1/graph?window=15m");
    const { context, page, seen } = await fresh();
    await page.click("nav >> text=Graph");
    await page.waitForSelector(".mesh-graph svg [data-edge]");
    expect(await page.locator(".mesh-graph [data-node]").count()).toBe(view.nodes.length);
    const drawn = await page.locator(".mesh-graph [data-edge]").evaluateAll((els) => els.map((e) => e.getAttribute("data-edge")).sort());
    expect(drawn).toEqual(view.edges.map((e) => `${e.source}>${e.target}>${e.protocol}`).sort());
    // The cross-cluster call: dashed, and labelled through the east-west gateway when the gateway is known.
    const across = view.edges.filter((e) => e.crossCluster);
    expect(across).toHaveLength(1);
    expect(await page.locator(".mesh-graph path.e.x").count()).toBe(1);
    if (across[0]?.via === "east-west") expect(await page.textContent(".mesh-graph svg")).toContain("⇄ E-W");
    // productpage → reviews failed 40 of its requests in the last minute: the worst band, its figure beside the line.
    const bad = view.edges.filter((e) => (e.signals.errorRatio ?? 0) >= 0.05);
    expect(bad.map((e) => e.target)).toEqual([expect.stringContaining("reviews")]);
    expect(await page.locator(".mesh-graph path.e-bad").count()).toBe(1);
    expect(await page.textContent(".mesh-graph svg")).toContain(`${((bad[0]?.signals.errorRatio ?? 0) * 100).toFixed(1)}%`);

    const byId = new Map(view.nodes.map((n) => [n.id, n]));
    const rows = page.locator(".vscroll [role=row]");
    expect(await page.getAttribute("[role=table][aria-label=Edges]", "aria-rowcount")).toBe(String(view.edges.length + 1));
    const listed = await rows.evaluateAll((els) =>
      els.map((r) =>
        [...r.querySelectorAll("[role=cell]")]
          .slice(0, 2)
          .map((c) => c.textContent)
          .join(" → "),
      ),
    );
    expect(listed.sort()).toEqual(view.edges.map((e) => `${end(byId.get(e.source))} → ${end(byId.get(e.target))}`).sort());
    await page.click("button[aria-label^='Sort by Errors']");
    await expect.poll(() => rows.first().textContent()).toContain("bookinfo/reviews");
    expect(page.url()).toContain("sort=errors");
    await page.screenshot({ path: join(shots, "graph.png"), fullPage: true });
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("a destination clicked in the graph shows its charts with the change marked and its impact", async () => {
    const series = await api<Core.DestinationMetrics>("GET", `/v1/destinations/${REVIEWS}/metrics?window=1h`);
    expect(series.markers.map((m) => m.name)).toEqual(["reviews-timeout"]);
    const { context, page, seen } = await fresh();
    await page.goto(`${plane.url}/#/graph`);
    await page.click(`.mesh-graph [data-href*='${REVIEWS}']`);
    await page.waitForSelector(".chart a.marker");
    expect(page.url()).toContain(`#/destinations/${REVIEWS}`);
    expect(await page.locator(".chart").count()).toBe(3);
    expect(await page.locator(".chart a.marker").count()).toBe(3);
    const main = await page.textContent("main");
    expect(main).toContain("TrafficPolicy reviews-timeout version 1 on cluster-east");
    expect(main).toMatch(/error ratio of reviews-bookinfo-cluster-east rose from 0\.0% to \d+\.\d% after TrafficPolicy reviews-timeout/);
    // The marker names its change on focus.
    await page.focus(".chart a.marker");
    expect(await page.isVisible(".chart a.marker:focus text")).toBe(true);
    await page.screenshot({ path: join(shots, "destination-signals.png") });
    await page.click("summary:text('The points behind the charts')");
    await expect.poll(() => page.locator("details table tbody tr").count()).toBe(series.points.length);
    await accessible(page);
    clean(seen);
    await context.close();
  });

  it("overview: a destination a change hurt is a problem naming the change, linked to the destination", async () => {
    const hurt = await api<Core.ImpactList>("GET", "/v1/metrics/impacts?window=6h");
    expect(hurt.impacts.map((i) => i.destination)).toContain(REVIEWS);
    const { context, page, seen } = await fresh();
    await page.waitForSelector("ul.problems");
    // Both its error ratio and its p99 rose after the change: two problems, each naming it.
    const problem = page.locator("ul.problems li", { hasText: `error ratio of ${REVIEWS}` });
    expect(await page.locator("ul.problems li", { hasText: `p99 of ${REVIEWS} rose` }).textContent()).toContain("after TrafficPolicy reviews-timeout");
    expect(await problem.textContent()).toMatch(
      new RegExp(`^destination ${REVIEWS}: error ratio of ${REVIEWS} rose .* after TrafficPolicy reviews-timeout version 1 on cluster-east$`),
    );
    await page.screenshot({ path: join(shots, "overview-impacts.png"), fullPage: true });
    await accessible(page);
    await problem.locator("a").click();
    await page.waitForSelector(".chart");
    expect(page.url()).toContain(`#/destinations/${REVIEWS}`);
    clean(seen);
    await context.close();
  });
});
