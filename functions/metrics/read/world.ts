/**
 * What discovery knows that the metrics API shows beside the counts: each edge side's discovered
 * Destination or Workload, its mesh and VirtualMesh, and which clusters have an east-west gateway.
 */
import type { Destination, Mesh, StoredResource, Workload } from "@meshplane/core/base";

/** The tenant's discovered world, indexed by what metrics name: cluster, namespace and name. */
export interface World {
  /** The tenant's registered clusters. */
  clusters: readonly string[];
  destination(cluster: string, namespace: string, service: string): Destination | undefined;
  workload(cluster: string, namespace: string, name: string): Workload | undefined;
  /** The VirtualMesh a mesh (by name) is a member of. */
  virtualMeshOf(mesh: string): string | undefined;
  /** Whether a cluster has an east-west gateway (an Istio mesh's discovered `eastwest` gateway, or an ambient one). */
  eastWest(cluster: string): boolean;
  /** Destinations of the same namespace and service in the tenant's clusters, the given one first. */
  sameService(destination: Destination): Destination[];
}

const at = (cluster: string, namespace: string, name: string) => `${cluster}/${namespace}/${name}`;

/** The World of the tenant's clusters, discovered objects and VirtualMeshes. */
export function worldOf(input: {
  clusters: readonly string[];
  meshes: readonly Mesh[];
  workloads: readonly Workload[];
  destinations: readonly Destination[];
  virtualMeshes: readonly Pick<StoredResource<"VirtualMesh">, "metadata" | "spec">[];
}): World {
  const destinations = new Map<string, Destination>();
  const byService = new Map<string, Destination[]>();
  for (const d of input.destinations) {
    const key = at(d.spec.cluster, d.spec.namespace, d.spec.name);
    if (!destinations.has(key)) destinations.set(key, d);
    const service = `${d.spec.namespace}/${d.spec.name}`;
    byService.set(service, [...(byService.get(service) ?? []), d]);
  }
  const workloads = new Map(input.workloads.map((w) => [at(w.spec.cluster, w.spec.namespace, w.spec.name), w]));
  const virtualMeshes = new Map<string, string>();
  for (const vm of [...input.virtualMeshes].sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1)))
    for (const m of vm.spec.meshes) if (!virtualMeshes.has(m.name)) virtualMeshes.set(m.name, vm.metadata.name);
  const eastWest = new Set(
    input.meshes
      .filter((m) => m.spec.istio?.gateways.some((g) => g.kind === "eastwest") || (m.spec.istio?.ambient?.eastWestGateways ?? []).length > 0)
      .map((m) => m.spec.cluster),
  );
  return {
    clusters: input.clusters,
    destination: (cluster, namespace, service) => destinations.get(at(cluster, namespace, service)),
    workload: (cluster, namespace, name) => workloads.get(at(cluster, namespace, name)),
    virtualMeshOf: (mesh) => virtualMeshes.get(mesh),
    eastWest: (cluster) => eastWest.has(cluster),
    sameService: (d) => {
      const all = byService.get(`${d.spec.namespace}/${d.spec.name}`) ?? [];
      const others = all.filter((o) => o.spec.cluster !== d.spec.cluster).sort((a, b) => (a.spec.cluster < b.spec.cluster ? -1 : 1));
      return [d, ...others.filter((o, i) => i === 0 || others[i - 1]?.spec.cluster !== o.spec.cluster)];
    },
  };
}
