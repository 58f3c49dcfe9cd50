/**
 * How a discovered mesh, workload or destination carries traffic (docs/ambient.md#what-discovery-sees):
 * its data plane (`sidecar`, `ambient`, `none`, a destination's `mixed`), the waypoint that serves it,
 * and for a mesh whether ztunnel runs and which waypoints it has. The CLI's `get` and `describe` print
 * these answers and the console draws them. Pure: the caller fetches.
 */
import { dataPlaneOf } from "../api/data-plane";

export { dataPlaneOf };

/** A waypoint an object's traffic goes through (`spec.waypoint` of a Workload or Destination). */
export interface WaypointRefView {
  name: string;
  namespace: string;
}

/** The data-plane fields of a discovered Workload's or Destination's spec (absent in an older agent's report). */
export interface DataPlaneSpec {
  name?: string;
  namespace?: string;
  dataPlane?: string;
  waypoint?: WaypointRefView;
}

/** A discovered Mesh as the API lists it, as far as its data plane goes. */
export interface MeshDataPlaneView {
  metadata: { name: string; cluster: string };
  spec: {
    type: string;
    cluster: string;
    namespace: string;
    version?: string;
    istio?: {
      ambient?: { ztunnel: { namespace: string; version: string } };
      waypoints?: { name: string; namespace: string; for: string }[];
    };
  };
}

/** A discovered Workload or Destination of a mesh, as `describeMeshDataPlane` reads it. */
export interface DiscoveredDataPlaneView {
  metadata: { name: string };
  spec: DataPlaneSpec & { mesh?: string };
}

/** `namespace/name` of the waypoint that serves it; "" when none does. */
export function waypointOf(spec: DataPlaneSpec): string {
  return spec.waypoint ? `${spec.waypoint.namespace}/${spec.waypoint.name}` : "";
}

/**
 * What `describe` says of an object's data plane: the mode, and — when it is served by a waypoint, or
 * is ambient (where L7 policies need one) — which waypoint, or `none`.
 */
export function dataPlaneFacts(spec: DataPlaneSpec): { dataPlane: string; waypoint?: string } {
  const dataPlane = dataPlaneOf(spec);
  const waypoint = waypointOf(spec);
  if (waypoint) return { dataPlane, waypoint };
  return dataPlane === "ambient" || dataPlane === "mixed" ? { dataPlane, waypoint: "none" } : { dataPlane };
}

export interface WaypointUse {
  name: string;
  namespace: string;
  /** The traffic it is for (`istio.io/waypoint-for`): service, workload, all or none. */
  for: string;
  /** The mesh's destinations and workloads whose traffic goes through it, by name. */
  destinations: string[];
  workloads: string[];
}

export interface MeshDataPlane {
  /** Where ztunnel runs and its version; absent: no ambient data plane. */
  ztunnel?: { namespace: string; version: string };
  waypoints: WaypointUse[];
  /** How many of the mesh's workloads use each data plane, in a fixed order (sidecar, ambient, none). */
  workloads: { dataPlane: string; count: number }[];
}

const MODES = ["sidecar", "ambient", "none"];
/** A data plane's place in MODES (an unknown one last). */
const modeOrder = (mode: string) => (MODES.includes(mode) ? MODES.indexOf(mode) : MODES.length);

/**
 * A mesh's data plane: ztunnel, each waypoint with the destinations and workloads (of the lists
 * given, those of the mesh) it serves, and its workloads counted per data plane.
 */
export function describeMeshDataPlane(
  mesh: MeshDataPlaneView,
  workloads: readonly DiscoveredDataPlaneView[],
  destinations: readonly DiscoveredDataPlaneView[],
): MeshDataPlane {
  const inMesh = (o: DiscoveredDataPlaneView) => o.spec.mesh === undefined || o.spec.mesh === mesh.metadata.name;
  const servedBy = (list: readonly DiscoveredDataPlaneView[], w: { name: string; namespace: string }) =>
    list
      .filter((o) => inMesh(o) && o.spec.waypoint?.name === w.name && o.spec.waypoint.namespace === w.namespace)
      .map((o) => o.metadata.name)
      .sort();
  const waypoints = [...(mesh.spec.istio?.waypoints ?? [])]
    .sort((a, b) => a.namespace.localeCompare(b.namespace) || a.name.localeCompare(b.name))
    .map((w) => ({ name: w.name, namespace: w.namespace, for: w.for, destinations: servedBy(destinations, w), workloads: servedBy(workloads, w) }));
  const counts = new Map<string, number>();
  for (const w of workloads.filter(inMesh)) counts.set(dataPlaneOf(w.spec), (counts.get(dataPlaneOf(w.spec)) ?? 0) + 1);
  return {
    ...(mesh.spec.istio?.ambient ? { ztunnel: { ...mesh.spec.istio.ambient.ztunnel } } : {}),
    waypoints,
    workloads: [...counts].map(([dataPlane, count]) => ({ dataPlane, count })).sort((a, b) => modeOrder(a.dataPlane) - modeOrder(b.dataPlane)),
  };
}

/** One line for a mesh's ztunnel: `ztunnel 1.24.2 in istio-system`, or that it has none. */
export function ztunnelText(ztunnel: MeshDataPlane["ztunnel"]): string {
  return ztunnel ? `ztunnel ${ztunnel.version} in ${ztunnel.namespace}` : "no ztunnel: sidecars only";
}
