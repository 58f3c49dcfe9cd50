/**
 * The console's graph page at 2,000 nodes: `npm start`'s control plane, Debian's Chromium opening
 * `#/graph` cold (a new browser context each run) RUNS times. The answer of `GET /v1/graph` is a
 * generated one (NODES nodes in CLUSTERS clusters, two edges per destination, an eighth of them across
 * clusters, error ratios from none to 20%) handed to the page in place of the API's, so the figure is
 * the console's own — reading, laying out and drawing; what the API takes to answer is
 * `npm run bench -- graph`'s. Figures: time from navigation to the picture drawn and to the table's
 * first rows, the layout alone, SVG elements, table rows in the DOM, the page's JS heap.
 */
import type { GraphView } from "@meshplane/core";
import { percentile } from "./_harness";
import { consoleBench, jsHeapMiB, signIn } from "../support/console-browser";

const RUNS = Number(process.env.RUNS ?? 5);
const NODES = Number(process.env.NODES ?? 2000);
const CLUSTERS = Number(process.env.CLUSTERS ?? 8);
const med = (xs: number[]) =>
  Math.round(
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    ),
  );

/** A node's or an edge's signals, varied by its index. */
const summary = (i: number) => {
  const requests = 60 * (1 + (i % 50));
  const failures = i % 7 === 0 ? Math.round(requests * ((i % 5) * 0.05)) : 0;
  return {
    requests,
    rps: requests / 900,
    errorRatio: failures / requests,
    non2xx: failures,
    errors5xx: failures,
    grpcErrors: 0,
    p50Ms: 5 + (i % 20),
    p90Ms: 20 + (i % 40),
    p99Ms: 40 + (i % 300),
    bytesIn: requests * 300,
    bytesOut: requests * 900,
    tcpOpened: 0,
    tcpClosed: 0,
  };
};

/** A tenant's graph: per cluster, a quarter of its nodes callers and the rest destinations. */
function syntheticGraph(nodes: number, clusters: number): GraphView {
  const view: GraphView = { from: new Date(Date.now() - 900_000).toISOString(), to: new Date().toISOString(), nodes: [], edges: [], metadata: {} };
  const callers: string[][] = Array.from({ length: clusters }, () => []);
  for (let i = 0; i < nodes; i++) {
    const c = i % clusters;
    const cluster = `cluster-${c}`;
    const namespace = `team-${Math.floor(i / clusters) % 12}`;
    const caller = Math.floor(i / clusters) % 4 === 0;
    const id = `${caller ? "w" : "d"}/${cluster}/${namespace}/svc-${i}`;
    view.nodes.push({
      id,
      kind: caller ? "workload" : "destination",
      cluster,
      namespace,
      name: `svc-${i}`,
      mesh: `istiod-${cluster}`,
      virtualMesh: "global",
      ...(caller ? {} : { resource: `svc-${i}-${namespace}-${cluster}`, signals: summary(i) }),
    });
    if (caller) callers[c]?.push(id);
  }
  view.nodes.forEach((n, i) => {
    if (n.kind !== "destination") return;
    const c = i % clusters;
    for (const k of [0, 1]) {
      const across = (i + k) % 8 === 0;
      const from = callers[across ? (c + 1) % clusters : c] ?? [];
      const source = from[(i * 7 + k * 13) % from.length] as string;
      view.edges.push({
        source,
        target: n.id,
        protocol: "http",
        crossCluster: across,
        ...(across ? { via: "east-west" as const } : {}),
        signals: summary(i + k),
      });
    }
  });
  return view;
}

consoleBench(async (plane, browser) => {
  const view = syntheticGraph(NODES, CLUSTERS);
  const body = JSON.stringify(view);
  const picture: number[] = [];
  const table: number[] = [];
  let svgElements = 0;
  let domRows = 0;
  let heapMiB = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    const page = await context.newPage();
    await page.route(
      (url) => url.pathname === "/v1/graph",
      (route) => route.fulfill({ status: 200, contentType: "application/json", body }),
    );
    const failures: string[] = [];
    page.on("pageerror", (e) => failures.push(e.message));
    page.on("console", (m) => m.type() === "error" && failures.push(m.text()));
    await signIn(page, plane.url, plane.adminToken);
    const t0 = performance.now();
    await page.goto(`${plane.url}/#/graph`);
    await page.waitForSelector(".mesh-graph svg [data-node]").catch(async (error: unknown) => {
      throw new Error(`no graph drawn: ${failures.join("; ") || (await page.textContent("main"))}`, { cause: error });
    });
    const drawn = performance.now() - t0;
    await page.waitForSelector(".vscroll [role=row]");
    const rows = performance.now() - t0;
    const nodesDrawn = await page.locator(".mesh-graph svg [data-node]").count();
    const edgesDrawn = await page.locator(".mesh-graph svg [data-edge]").count();
    if (nodesDrawn !== view.nodes.length || edgesDrawn !== view.edges.length)
      throw new Error(`the picture has ${nodesDrawn} nodes and ${edgesDrawn} edges, not ${view.nodes.length} and ${view.edges.length}`);
    if (i > 0) {
      // The first run warms the control plane and the OS file cache; it is not counted.
      picture.push(drawn);
      table.push(rows);
    }
    svgElements = await page.locator(".mesh-graph svg *").count();
    domRows = await page.locator(".vscroll [role=row]").count();
    heapMiB = await jsHeapMiB(page);
    await context.close();
    console.log(`run ${i}: picture ${drawn.toFixed(0)} ms, table ${rows.toFixed(0)} ms`);
  }
  const { layoutGraph } = await import("../../packages/console/src/graph-model");
  const t1 = performance.now();
  layoutGraph(view.nodes, view.edges);
  return {
    bench: "console-graph",
    runs: RUNS,
    nodes: view.nodes.length,
    edges: view.edges.length,
    clusters: CLUSTERS,
    answer_kib: Math.round(body.length / 1024),
    first_graph_ms: med(picture),
    first_table_rows_ms: med(table),
    layout_ms_node: Math.round(performance.now() - t1),
    svg_elements: svgElements,
    dom_rows: domRows,
    js_heap_mib: heapMiB,
  };
});
