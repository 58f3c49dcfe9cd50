/**
 * Change markers and impact (docs/observability.md#change-impact): the policy versions that reached a
 * cluster, as the store recorded them, placed on the destinations they select, and judged by core's
 * findImpact on a destination's minutes.
 */
import { type ChangeImpact, type ChangeMarker, MINUTE_S, type Signals, addSignals, emptySignals, findImpact } from "@meshplane/core/base";
import type { AppliedChanges } from "../../store/applied-changes";
import type { ResolvedRow } from "./resolve";

/** What a marker needs of a destination: its discovered name and mesh. */
export interface MarkedDestination {
  name: string;
  mesh: string;
}

/**
 * The markers of `destination` among `records`, oldest first: each change whose policy selects it,
 * or whose VirtualMesh has its mesh as a member, once per cluster it reached.
 */
export function markersFor(destination: MarkedDestination, records: readonly AppliedChanges[]): ChangeMarker[] {
  const markers: ChangeMarker[] = [];
  for (const record of records) {
    for (const change of record.changes) {
      const selects = change.destinations?.includes(destination.name) || change.meshes?.includes(destination.mesh);
      if (!selects) continue;
      markers.push({ at: record.at, kind: change.kind, name: change.name, version: change.version, cluster: record.cluster, generation: record.generation });
    }
  }
  return markers.sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || (a.cluster < b.cluster ? -1 : a.cluster > b.cluster ? 1 : 0));
}

/** A destination's minutes (start → counts) from its rows: what findImpact judges. */
export function minutesOf(rows: readonly ResolvedRow[]): Map<number, Signals> {
  const minutes = new Map<number, Signals>();
  for (const row of rows) {
    if (row.seconds !== MINUTE_S) continue;
    let s = minutes.get(row.start);
    if (!s) minutes.set(row.start, (s = emptySignals()));
    addSignals(s, row.signals);
  }
  return minutes;
}

/** The impacts of the markers that fall in [from, to) (epoch seconds), judged on `rows`. */
export function impactsOf(destination: string, rows: readonly ResolvedRow[], markers: readonly ChangeMarker[], from: number, to: number): ChangeImpact[] {
  const inside = (m: ChangeMarker) => Date.parse(m.at) >= from * 1000 && Date.parse(m.at) < to * 1000;
  return findImpact(destination, minutesOf(rows), markers).filter((impact) => inside(impact.change));
}
