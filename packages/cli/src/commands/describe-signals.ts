/**
 * The "Signals" block of `meshplane describe destination`: its golden signals over a window, per
 * minute, the changes that reached it and whether one hurt it (docs/observability.md#change-impact),
 * from `GET /v1/destinations/{name}/metrics` (docs/api.md).
 */
import { type DestinationMetrics, type SeriesPoint, destinationMetrics } from "@meshplane/core";
import { ApiError, type Client } from "../client";
import { printable } from "../output";
import type { printer } from "./describe-parts";
import { bytesText, durationText, msText, rateText, ratioText, sparkline, stepSeconds, sumSummaries, windowSeconds } from "./signals";

/** The signals of a destination, or why there are none: `describe` still answers when the metrics API cannot. */
export type SignalsResult = { metrics: DestinationMetrics } | { error: string };

/**
 * Destination `name`'s metrics over `window` (`15m`, `1h`: a bad one is a UsageError), at most
 * SERIES_POINTS points. An API error becomes `{ error }` (a control plane without the metrics API
 * answers 404 for a destination that exists); anything else is thrown.
 */
export async function fetchSignals(client: Client, name: string, window: string): Promise<SignalsResult> {
  const step = durationText(stepSeconds(windowSeconds(window)));
  try {
    const q = new URLSearchParams({ window, step });
    const { body } = await client.request<unknown>("GET", `/v1/destinations/${encodeURIComponent(name)}/metrics?${q}`);
    return { metrics: destinationMetrics.parse(body) };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: error.status === 404 ? "this control plane keeps no metrics for it (no metrics API, or none reported)" : error.message };
  }
}

/** A series as a sparkline with its largest value, or undefined when no point has one. */
function seriesLine(points: readonly SeriesPoint[], value: (p: SeriesPoint) => number | undefined, text: (v: number) => string): string | undefined {
  const values = points.map(value);
  const known = values.filter((v): v is number => v !== undefined);
  if (known.length === 0) return undefined;
  return `${sparkline(values)}  max ${text(Math.max(...known))}`;
}

/** The lines under the block's heading, without colour (pure: the unit tests read them). */
export function signalLines(m: DestinationMetrics): { lines: string[]; impacts: string[] } {
  const t = m.total;
  const lines = [`Rate:        ${rateText(t.rps)} req/s, ${t.requests} requests`];
  if (t.requests > 0) {
    lines.push(`Errors:      ${ratioText(t.errorRatio)} failed (5xx ${t.errors5xx}, gRPC ${t.grpcErrors}, not 2xx ${t.non2xx})`);
    lines.push(`Latency:     p50 ${msText(t.p50Ms)}, p90 ${msText(t.p90Ms)}, p99 ${msText(t.p99Ms)}`);
  }
  if (t.tcpOpened > 0 || t.tcpClosed > 0) lines.push(`TCP:         ${t.tcpOpened} connections opened, ${t.tcpClosed} closed`);
  if (t.bytesIn > 0 || t.bytesOut > 0) lines.push(`Bytes:       ${bytesText(t.bytesIn)} in, ${bytesText(t.bytesOut)} out`);
  const step = m.stepSeconds % 60 === 0 ? durationText(m.stepSeconds) : `${m.stepSeconds}s`;
  const series: [string, string | undefined][] = [
    ["rps", seriesLine(m.points, (p) => (p.requests > 0 || p.rps > 0 ? p.rps : undefined), rateText)],
    ["errors", seriesLine(m.points, (p) => p.errorRatio, ratioText)],
    ["p99", seriesLine(m.points, (p) => p.p99Ms, msText)],
  ];
  const drawn = series.filter((s): s is [string, string] => s[1] !== undefined);
  if (drawn.length > 0) {
    lines.push(`${`Per ${step}:`.padEnd(13)}${m.from} to ${m.to}`);
    for (const [label, line] of drawn) lines.push(`  ${label.padEnd(9)} ${line}`);
  }
  if (m.combined !== undefined) {
    // Quantiles do not add up across points; requests and failures do.
    const all = sumSummaries(m.combined.points);
    const seconds = (Date.parse(m.to) - Date.parse(m.from)) / 1000;
    const rps = seconds > 0 ? all.requests / seconds : 0;
    lines.push(`All clusters (${m.combined.clusters.join(", ")}): ${rateText(rps)} req/s, ${all.requests} requests, ${ratioText(all.errorRatio)} failed`);
  }
  for (const c of [...m.markers].sort((a, b) => Date.parse(a.at) - Date.parse(b.at)))
    lines.push(`Change:      ${c.at} ${c.kind}/${c.name} version ${c.version} reached ${c.cluster} (generation ${c.generation})`);
  for (const n of m.notes) lines.push(`Note:        ${n}`);
  return { lines: lines.map(printable), impacts: m.impacts.map((i) => printable(`Impact:      ${i.message}`)) };
}

/** Prints the block under "Signals (last WINDOW)"; impacts in red on a terminal. */
export function printSignals(p: ReturnType<typeof printer>, window: string, result: SignalsResult): void {
  p.heading(`Signals (last ${window})`);
  if ("error" in result) {
    p.line(`not available: ${printable(result.error)}`);
    return;
  }
  const { lines, impacts } = signalLines(result.metrics);
  for (const l of lines) p.line(l);
  for (const l of impacts) p.line(p.c.red(l));
}
