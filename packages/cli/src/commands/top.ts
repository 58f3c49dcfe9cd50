/**
 * `meshplane top destinations|edges`: the busiest, failing or slowest destinations and edges of the
 * tenant over a window, from `GET /v1/graph` (docs/observability.md#the-console-and-the-cli).
 */
import { type GraphView, type SignalSummary, graphView } from "@meshplane/core";
import type { Command } from "commander";
import type { Client } from "../client";
import { formatData, printable, table } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";
import { bytesText, msText, rateText, ratioText, windowSeconds } from "./signals";
import {
  type DestinationRow,
  type EdgeRow,
  type Sort,
  clusterText,
  destinationKey,
  destinationRows,
  edgeKey,
  edgeRows,
  nodeName,
  placedName,
  sortRows,
} from "./top-rows";

/** Edges asked for per page, the API's largest page. */
const PAGE_EDGES = 1000;
/** Pages read at most: beyond 20,000 edges the listing says it is cut and how to narrow it. */
export const MAX_PAGES = 20;

interface TopOptions {
  window: string;
  sort: Sort;
  cluster?: string;
  namespace?: string;
  mesh?: string;
  output: "table" | "wide" | "json" | "yaml";
}

/**
 * The graph's pages over `window`, following `metadata.continue` for at most MAX_PAGES pages; `cut`
 * when more followed. Each page is parsed with core's graphView: an answer this CLI cannot read is an
 * error naming the field.
 */
export async function graphPages(client: Client, o: Omit<TopOptions, "sort" | "output">): Promise<{ pages: GraphView[]; cut: boolean }> {
  const pages: GraphView[] = [];
  let next: string | undefined;
  do {
    const q = new URLSearchParams({ window: o.window, limit: String(PAGE_EDGES) });
    for (const key of ["cluster", "namespace", "mesh"] as const) if (o[key] !== undefined) q.set(key, o[key]);
    if (next !== undefined) q.set("continue", next);
    const { body } = await client.request<unknown>("GET", `/v1/graph?${q}`);
    const page = graphView.parse(body);
    pages.push(page);
    next = page.metadata.continue;
  } while (next !== undefined && pages.length < MAX_PAGES);
  return { pages, cut: next !== undefined };
}

/** The row of a destination: DESTINATION, CLUSTER, RPS, ERRORS, P50, P99, CALLERS (wide: REQUESTS, 5XX, P90, IN, OUT, RESOURCE). */
export function destinationCells(r: DestinationRow, wide: boolean): string[] {
  const s = r.signals;
  const cells = [nodeName(r.node), clusterText(r.node), rateText(s.rps), ratioText(s.errorRatio), msText(s.p50Ms), msText(s.p99Ms), String(r.callers)];
  if (wide) cells.push(String(s.requests), String(s.errors5xx), msText(s.p90Ms), bytesText(s.bytesIn), bytesText(s.bytesOut), r.node.resource ?? "");
  return cells.map(printable);
}
export const DESTINATION_HEAD = ["DESTINATION", "CLUSTER", "RPS", "ERRORS", "P50", "P99", "CALLERS"];
const DESTINATION_WIDE = ["REQUESTS", "5XX", "P90", "IN", "OUT", "RESOURCE"];

/** The row of an edge: SOURCE, DESTINATION, CROSS-CLUSTER, RPS, ERRORS, P50, P99 (wide: PROTOCOL, REQUESTS, 5XX, P90, IN, OUT). */
export function edgeCells(r: EdgeRow, wide: boolean): string[] {
  const { edge } = r;
  const s = edge.signals;
  const cross = edge.crossCluster ? (edge.via !== undefined ? `yes (${edge.via})` : "yes") : "no";
  const cells = [
    placedName(r.source, edge.source),
    placedName(r.target, edge.target),
    cross,
    rateText(s.rps),
    ratioText(s.errorRatio),
    msText(s.p50Ms),
    msText(s.p99Ms),
  ];
  if (wide) cells.push(edge.protocol, String(s.requests), String(s.errors5xx), msText(s.p90Ms), bytesText(s.bytesIn), bytesText(s.bytesOut));
  return cells.map(printable);
}
export const EDGE_HEAD = ["SOURCE", "DESTINATION", "CROSS-CLUSTER", "RPS", "ERRORS", "P50", "P99"];
const EDGE_WIDE = ["PROTOCOL", "REQUESTS", "5XX", "P90", "IN", "OUT"];

/** What one `top` command lists: its rows from the pages, how they sort, print and serialise. */
interface Listing<R> {
  rows: (pages: readonly GraphView[]) => R[];
  signals: (r: R) => SignalSummary;
  key: (r: R) => string;
  /** The row in -o json and yaml. */
  item: (r: R) => unknown;
  cells: (r: R, wide: boolean) => string[];
  head: string[];
  wideHead: string[];
}

const DESTINATIONS: Listing<DestinationRow> = {
  rows: destinationRows,
  signals: (r) => r.signals,
  key: destinationKey,
  item: (r) => ({ ...r.node, signals: r.signals, callers: r.callers }),
  cells: destinationCells,
  head: DESTINATION_HEAD,
  wideHead: DESTINATION_WIDE,
};

const EDGES: Listing<EdgeRow> = {
  rows: edgeRows,
  signals: (r) => r.edge.signals,
  key: edgeKey,
  item: (r) => ({ ...r.edge, sourceNode: r.source, targetNode: r.target }),
  cells: edgeCells,
  head: EDGE_HEAD,
  wideHead: EDGE_WIDE,
};

async function top<R>(listing: Listing<R>, command: Command): Promise<number> {
  const o = optionsOf<TopOptions>(command);
  windowSeconds(o.window);
  const streams = streamsOf();
  const { pages, cut } = await graphPages(clientFor(command), o);
  const first = pages[0] as GraphView;
  const bound = MAX_PAGES * PAGE_EDGES;
  if (cut) streams.err.write(`more than ${bound} edges: showing what the first ${bound} reach; narrow with --cluster, --namespace or --mesh\n`);
  const rows = sortRows(listing.rows(pages), o.sort, listing.signals, listing.key);
  const wide = o.output === "wide";
  if (o.output === "json" || o.output === "yaml") {
    streams.out.write(formatData({ from: first.from, to: first.to, items: rows.map(listing.item), ...(cut ? { cut } : {}) }, o.output));
  } else if (rows.length === 0) streams.err.write(`no traffic in the last ${o.window}\n`);
  else
    streams.out.write(
      table(
        streams,
        wide ? [...listing.head, ...listing.wideHead] : listing.head,
        rows.map((r) => listing.cells(r, wide)),
      ),
    );
  return 0;
}

/** `top destinations`: each destination's traffic in from every caller. */
export const destinations = (_o: unknown, command: Command) => top(DESTINATIONS, command);
/** `top edges`: each caller → destination pair. */
export const edges = (_o: unknown, command: Command) => top(EDGES, command);
