/**
 * A destination's series (`GET /v1/destinations/{name}/metrics`, docs/api.md#golden-signals): the
 * traffic into its service in its cluster from callers in every cluster, per point, with the same
 * service in the tenant's other clusters combined, the changes that reached it and their impact.
 */
import {
  type Destination,
  type DestinationMetrics,
  type MetricsSourceHealth,
  type SeriesPoint,
  type Signals,
  addSignals,
  emptySignals,
  sumSignals,
  summarize,
} from "@meshplane/core/base";
import type { AppliedChanges } from "../../store/applied-changes";
import { impactsOf, markersFor } from "./markers";
import type { ResolvedRow } from "./resolve";
import type { TimeRange } from "./window";
import type { World } from "./world";

const iso = (s: number) => new Date(s * 1000).toISOString();

/** The rows into one destination (its service, namespace and cluster). */
export function rowsInto(rows: readonly ResolvedRow[], d: Destination): ResolvedRow[] {
  return rows.filter((r) => r.destination.cluster === d.spec.cluster && r.destination.namespace === d.spec.namespace && r.destination.service === d.spec.name);
}

/** `rows` summed into the points of `range`; a row outside it is left out. */
export function pointsOf(rows: readonly ResolvedRow[], range: TimeRange): { points: SeriesPoint[]; sums: Signals[] } {
  const count = (range.to - range.from) / range.step;
  const sums = Array.from({ length: count }, () => emptySignals());
  for (const row of rows) {
    if (row.start < range.from || row.start >= range.to) continue;
    addSignals(sums[Math.floor((row.start - range.from) / range.step)] as Signals, row.signals);
  }
  return { points: sums.map((s, i) => ({ t: iso(range.from + i * range.step), ...summarize(s, range.step) })), sums };
}

export interface SeriesInput {
  destination: Destination;
  world: World;
  /** The tenant's rows from (range.from − the impact rule's window) to range.to, resolved. */
  rows: readonly ResolvedRow[];
  range: TimeRange;
  /** Changes recorded over the same span as `rows`. */
  records: readonly AppliedChanges[];
  /** Clusters that sent a bucket inside the range. */
  reporting: ReadonlySet<string>;
  /** Each cluster's latest word on reading its Prometheus, where known. */
  health: ReadonlyMap<string, MetricsSourceHealth>;
}

/** What the figures cannot show of the destination and why. */
function notesOf(d: Destination, clusters: readonly string[], input: SeriesInput): string[] {
  const notes: string[] = [];
  if (d.spec.dataPlane === "ambient" && !d.spec.waypoint)
    notes.push("TCP only: ztunnel reports no requests (the destination is on the ambient data plane without a waypoint)");
  for (const cluster of clusters) {
    const health = input.health.get(cluster);
    if (health && health.state !== "ok")
      notes.push(
        `cluster ${cluster} reads its Prometheus ${health.state === "partial" ? "in part" : "not at all"}${health.message ? `: ${health.message}` : ""}`,
      );
    if (!input.reporting.has(cluster)) notes.push(`cluster ${cluster} sent no metrics in this window`);
  }
  return notes;
}

/** The answer of `GET /v1/destinations/{name}/metrics`. */
export function destinationSeries(input: SeriesInput): DestinationMetrics {
  const { destination: d, range } = input;
  const own = rowsInto(input.rows, d);
  const { points, sums } = pointsOf(own, range);
  const same = input.world.sameService(d);
  const markers = markersFor({ name: d.metadata.name, mesh: d.spec.mesh }, input.records);
  const inRange = markers.filter((m) => Date.parse(m.at) >= range.from * 1000 && Date.parse(m.at) < range.to * 1000);
  const answer: DestinationMetrics = {
    destination: d.metadata.name,
    cluster: d.spec.cluster,
    from: iso(range.from),
    to: iso(range.to),
    stepSeconds: range.step,
    points,
    total: summarize(sumSignals(sums), range.to - range.from),
    markers: inRange,
    impacts: impactsOf(d.metadata.name, own, markers, range.from, range.to),
    notes: notesOf(
      d,
      same.map((o) => o.spec.cluster),
      input,
    ),
  };
  if (same.length > 1) {
    const combined = pointsOf(
      same.flatMap((o) => rowsInto(input.rows, o)),
      range,
    );
    answer.combined = { clusters: same.map((o) => o.spec.cluster), points: combined.points };
  }
  return answer;
}
