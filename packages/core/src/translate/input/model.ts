import type { CertificateResult, Destination, Mesh, StoredResource, Workload } from "../../api/index";
import { compareStrings, pushTo, sortBy } from "../compare";
import { TranslateError } from "../errors";
import { PlacementIndex } from "./placement-index";
import { type VirtualMeshTrust, certificateReports } from "../virtual-mesh/trust";
import type { TranslateInput } from "../types";
import { type IstioApiVersions, istioApiVersions } from "../output/versions";
import { waypointPlanned } from "../waypoints/planned";

/**
 * The tenant's input, filtered to registered clusters, sorted by name and indexed. Every translator
 * reads the world through this, so iteration order never depends on the order of input lists.
 */
export interface Model {
  readonly tenant: string;
  /** Registered clusters, sorted. */
  readonly clusters: readonly string[];
  readonly meshes: ReadonlyMap<string, Mesh>;
  readonly workloads: ReadonlyMap<string, Workload>;
  /** Destinations of registered clusters whose mesh is known, by name, sorted. */
  readonly destinations: ReadonlyMap<string, Destination>;
  readonly destinationIndex: PlacementIndex<Destination>;
  readonly workloadIndex: PlacementIndex<Workload>;
  readonly virtualMeshes: readonly StoredResource<"VirtualMesh">[];
  readonly trafficPolicies: readonly StoredResource<"TrafficPolicy">[];
  readonly accessPolicies: readonly StoredResource<"AccessPolicy">[];
  /** VirtualMesh name → its certificate authority (TranslateInput.trust). */
  readonly trust: Readonly<Record<string, VirtualMeshTrust>>;
  /** The agent's latest certificate report for `mesh` in `cluster`. */
  certificateReport(cluster: string, mesh: string): CertificateResult | undefined;
  /**
   * Why a discovered name (or a `cluster/namespace/name` ref) the input refers to is not in the
   * model: "not found", or the name conflict that left it out.
   */
  missing(key: string): string;
  /** The destination a `{cluster, namespace, name}` ref names, if discovered. */
  destinationByRef(ref: ServiceKey): Destination | undefined;
  /** Meshes discovered in `cluster`, sorted by name. */
  meshesIn(cluster: string): readonly Mesh[];
  meshOf(item: Destination | Workload): Mesh;
  /** Workloads backing a destination (its `spec.workloads` that are known), sorted by name. */
  backingWorkloads(destination: Destination): readonly Workload[];
  /** Names of the workloads of `mesh` in Istio's ambient data plane (docs/ambient.md), sorted. */
  ambientWorkloads(mesh: string): readonly string[];
  istioVersions(cluster: string): IstioApiVersions;
  /**
   * Whether `destination.spec.waypoint` is one meshplane will create and bind (waypoints on demand,
   * docs/ambient.md#waypoints-on-demand) rather than one discovery saw: statuses may say so.
   */
  waypointPlanned(destination: Destination): boolean;
}

export interface ServiceKey {
  cluster: string;
  namespace: string;
  name: string;
}

/** `cluster/namespace/name`, the form refs take in error messages and map keys. */
export function refKey(ref: ServiceKey): string {
  return `${ref.cluster}/${ref.namespace}/${ref.name}`;
}

function place(item: Destination | Workload) {
  return { cluster: item.spec.cluster, namespace: item.spec.namespace, labels: item.spec.labels };
}

/**
 * Discovered objects by name. Names are the control plane's and injective (docs/api.md, "Discovered
 * names"), so two objects under one name mean a store written before they were (objects whose agent
 * has not reported since) or a SHA-256 collision: every object under such a name is left out, and
 * `conflicts` says why, for the statuses of whatever refers to it. Translation of everything else goes on.
 */
function discoveredByName<T extends Mesh | Workload | Destination>(items: readonly T[], conflicts: Map<string, string>): Map<string, T> {
  const groups = new Map<string, T[]>();
  for (const item of sortBy(items, (i) => i.metadata.name)) pushTo(groups, item.metadata.name, item);
  const byName = new Map<string, T>();
  for (const [name, group] of groups) {
    const [only, ...others] = group;
    if (only !== undefined && others.length === 0) {
      byName.set(name, only);
      continue;
    }
    const where = [...new Set(group.map((item) => `${item.spec.cluster}/${item.spec.namespace}`))].sort(compareStrings);
    const reason = `is ambiguous: ${group.length} discovered objects share the name ${name} (${where.join(", ")}), so none of them is translated until their clusters' agents report again`;
    // Meshes are referred to by name, destinations by `cluster/namespace/name`; workloads by neither.
    for (const item of group) {
      if (item.kind === "Mesh") conflicts.set(name, reason);
      else if (item.kind === "Destination") conflicts.set(refKey(item.spec), reason);
    }
  }
  return byName;
}

function uniqueByName<T extends { metadata: { name: string } }>(items: readonly T[], what: string): Map<string, T> {
  const byName = new Map<string, T>();
  for (const item of sortBy(items, (i) => i.metadata.name)) {
    if (byName.has(item.metadata.name)) throw new TranslateError(`two ${what} named ${item.metadata.name} in one tenant`);
    byName.set(item.metadata.name, item);
  }
  return byName;
}

/**
 * Indexes `input`. Discovered objects of unregistered clusters are dropped (types.ts), and so are
 * workloads and destinations whose mesh is unknown: without a mesh there is nothing to translate to.
 * Discovered objects that share a name are left out and said why (`missing`); two user resources of a
 * kind under one name are a store bug and throw TranslateError.
 */
export function buildModel(input: TranslateInput): Model {
  return withPolicies(buildWorld(input), input);
}

/**
 * The model of `input` without its TrafficPolicies and AccessPolicies: what discovery, the
 * VirtualMeshes and their CAs say. Translator keeps it while those stay the same.
 */
export function buildWorld(input: TranslateInput): Model {
  const clusters = [...new Set(input.clusters)].sort(compareStrings);
  const registered = new Set(clusters);
  const conflicts = new Map<string, string>();
  const meshes = discoveredByName(
    input.meshes.filter((m) => registered.has(m.spec.cluster)),
    conflicts,
  );
  // A workload or destination belongs to a mesh of its own cluster; a name the control plane gave
  // another cluster's mesh never makes it one of that mesh's (docs/api.md, "Discovered names").
  const known = <T extends Destination | Workload>(item: T) =>
    registered.has(item.spec.cluster) && meshes.get(item.spec.mesh)?.spec.cluster === item.spec.cluster;
  const workloads = discoveredByName(input.workloads.filter(known), conflicts);
  const destinations = discoveredByName(input.destinations.filter(known), conflicts);
  const byRef = new Map([...destinations.values()].map((d) => [refKey(d.spec), d]));
  const meshesByCluster = new Map<string, Mesh[]>();
  for (const mesh of meshes.values()) pushTo(meshesByCluster, mesh.spec.cluster, mesh);
  const versions = new Map(clusters.map((c) => [c, istioApiVersions((meshesByCluster.get(c) ?? []).filter((m) => m.spec.type === "istio"))]));
  const reports = certificateReports(input.certificates);
  const ambient = new Map<string, string[]>();
  for (const w of workloads.values()) if (w.spec.dataPlane === "ambient") pushTo(ambient, w.spec.mesh, w.metadata.name);

  return {
    tenant: input.tenant,
    clusters,
    meshes,
    workloads,
    destinations,
    destinationIndex: new PlacementIndex([...destinations.values()], place),
    workloadIndex: new PlacementIndex([...workloads.values()], place),
    virtualMeshes: [...uniqueByName(input.virtualMeshes, "VirtualMeshes").values()],
    trafficPolicies: [],
    accessPolicies: [],
    trust: input.trust ?? {},
    certificateReport: (cluster, mesh) => (registered.has(cluster) ? reports(cluster, mesh) : undefined),
    destinationByRef: (ref) => byRef.get(refKey(ref)),
    missing: (key) => conflicts.get(key) ?? "not found",
    meshesIn: (cluster) => meshesByCluster.get(cluster) ?? [],
    meshOf: (item) => meshes.get(item.spec.mesh) as Mesh,
    backingWorkloads: (d) => d.spec.workloads.flatMap((name) => workloads.get(name) ?? []).sort((a, b) => compareStrings(a.metadata.name, b.metadata.name)),
    ambientWorkloads: (mesh) => ambient.get(mesh) ?? [],
    istioVersions: (cluster) => versions.get(cluster) ?? istioApiVersions([]),
    waypointPlanned,
  };
}

/** `world` with `input`'s TrafficPolicies and AccessPolicies, sorted by name (TranslateError on a name used twice). */
export function withPolicies(world: Model, input: Pick<TranslateInput, "trafficPolicies" | "accessPolicies">): Model {
  return {
    ...world,
    trafficPolicies: [...uniqueByName(input.trafficPolicies, "TrafficPolicies").values()],
    accessPolicies: [...uniqueByName(input.accessPolicies, "AccessPolicies").values()],
  };
}
