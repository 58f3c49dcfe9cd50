/**
 * The tenant's destinations a change hurt (`GET /v1/metrics/impacts`, docs/api.md#golden-signals):
 * every destination with traffic in the window, its markers judged by core's findImpact, newest
 * change first — what the overview lists among its problems.
 */
import type { ChangeImpact, Destination } from "@meshplane/core/base";
import type { AppliedChanges } from "../../store/applied-changes";
import { impactsOf, markersFor } from "./markers";
import type { ResolvedRow } from "./resolve";
import type { World } from "./world";

/** Impacts of changes made in [from, to) (epoch seconds), judged on `rows` (which reach back the rule's window before `from`). */
export function impactsIn(world: World, rows: readonly ResolvedRow[], records: readonly AppliedChanges[], from: number, to: number): ChangeImpact[] {
  const into = new Map<string, { destination: Destination; rows: ResolvedRow[] }>();
  for (const row of rows) {
    const cluster = row.destination.cluster;
    if (cluster === undefined) continue;
    const destination = world.destination(cluster, row.destination.namespace, row.destination.service);
    if (!destination) continue;
    const seen = into.get(destination.metadata.name);
    if (seen) seen.rows.push(row);
    else into.set(destination.metadata.name, { destination, rows: [row] });
  }
  const impacts: ChangeImpact[] = [];
  for (const { destination, rows: own } of into.values()) {
    if (!own.some((r) => r.start >= from && r.start < to)) continue;
    const markers = markersFor({ name: destination.metadata.name, mesh: destination.spec.mesh }, records);
    if (markers.length > 0) impacts.push(...impactsOf(destination.metadata.name, own, markers, from, to));
  }
  return impacts.sort(
    (a, b) => Date.parse(b.change.at) - Date.parse(a.change.at) || (a.destination < b.destination ? -1 : a.destination > b.destination ? 1 : 0),
  );
}
