import type { Destination, Mesh, Workload } from "../api/discovery";
import { destinationDataPlane } from "./ambient";
import { type ClusterIndex, compareStrings, selects, sortedRecord } from "./cluster-index";
import { indexEndpoints } from "./endpoints";
import type { Service } from "./kube";
import { istioMeshFor, osmMesh } from "./mesh-choice";
import { discoveredName } from "./names";
import { requestedRevision } from "./sidecars";
import { boundWaypoint } from "./waypoints";

export const DISCOVER_ANNOTATION = "meshplane.dev/discover";

/** Labels that differ between pods of one workload or between revisions, never between subsets. */
const NOT_SUBSET_KEYS = new Set(["pod-template-hash", "service.istio.io/canonical-revision"]);

type Port = Destination["spec"]["ports"][number];

/**
 * Label key → sorted distinct values, for keys that take more than one value across the backing
 * workloads (reviews v1/v2/v3 → `{version: [v1, v2, v3]}`). A key only some workloads carry, with
 * one value, is not a subset: there is nothing to choose between (Gloo Mesh does the same).
 */
export function subsetsOf(workloads: readonly Workload[]): Record<string, string[]> {
  const values = new Map<string, Set<string>>();
  for (const workload of workloads) {
    for (const [key, value] of Object.entries(workload.spec.labels)) {
      if (NOT_SUBSET_KEYS.has(key)) continue;
      values.set(key, (values.get(key) ?? new Set()).add(value));
    }
  }
  const subsets: Record<string, string[]> = {};
  for (const key of [...values.keys()].toSorted(compareStrings)) {
    const set = values.get(key) as Set<string>;
    if (set.size > 1) subsets[key] = [...set].toSorted(compareStrings);
  }
  return subsets;
}

function portsOf(service: Service): Port[] {
  const ports = (service.spec.ports ?? []).map(
    (p): Port => ({
      ...(p.name === undefined || p.name === "" ? {} : { name: p.name }),
      port: p.port,
      protocol: p.protocol ?? "TCP",
      ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
      ...(p.targetPort === undefined ? {} : { targetPort: p.targetPort }),
    }),
  );
  // Sorted so that reordering ports in a manifest does not change the discovery hash.
  return ports.toSorted((a, b) => a.port - b.port || compareStrings(a.protocol, b.protocol) || compareStrings(a.name ?? "", b.name ?? ""));
}

/**
 * The mesh of a Service no workload backs (it is annotated for discovery): the namespace's OSM or
 * Istio revision label decides, else the default Istio mesh, else the first mesh by name.
 */
function meshForNamespace(index: ClusterIndex, meshes: readonly Mesh[], namespace: string): Mesh | undefined {
  const labels = index.namespaceLabels(namespace);
  const osm = osmMesh(meshes);
  if (
    osm &&
    (labels["openservicemesh.io/monitored-by"] !== undefined || index.namespaceAnnotations(namespace)["openservicemesh.io/sidecar-injection"] === "enabled")
  ) {
    return osm;
  }
  return istioMeshFor(meshes, requestedRevision(labels)) ?? meshes[0];
}

/**
 * The Destinations of a cluster (docs/resources.md#discovery): each Service backed by a Workload in
 * its namespace (non-empty selector ⊆ the workload's pod template labels), or annotated
 * `meshplane.dev/discover: "true"`, with its data plane and the waypoint bound to it, if one serves
 * services (docs/ambient.md#what-discovery-sees). A cluster without a mesh has none. `meshes` and
 * `workloads` are this cluster's, sorted by name; the result is sorted by name.
 */
export function discoverDestinations(index: ClusterIndex, meshes: readonly Mesh[], workloads: readonly Workload[]): Destination[] {
  if (meshes.length === 0) return [];
  const endpointsOf = indexEndpoints(index);
  const workloadsByNamespace = new Map<string, Workload[]>();
  for (const w of workloads) workloadsByNamespace.set(w.spec.namespace, [...(workloadsByNamespace.get(w.spec.namespace) ?? []), w]);

  const destinations: Destination[] = [];
  for (const service of index.objects.services) {
    const { name, namespace = "" } = service.metadata;
    const backing = (workloadsByNamespace.get(namespace) ?? []).filter((w) => selects(service.spec.selector, w.spec.labels));
    if (backing.length === 0 && service.metadata.annotations?.[DISCOVER_ANNOTATION] !== "true") continue;
    // Backing workloads are sorted by name, so with several meshes the choice is stable.
    const meshName = backing[0]?.spec.mesh ?? meshForNamespace(index, meshes, namespace)?.metadata.name;
    const mesh = meshes.find((m) => m.metadata.name === meshName);
    if (meshName === undefined || mesh === undefined) continue;
    const namespaceLabels = index.namespaceLabels(namespace);
    const waypoint = boundWaypoint(index, { namespace, labels: service.metadata.labels }, "service", mesh.spec.istio?.waypoints ?? []);
    const ingress = (service.status?.loadBalancer?.ingress ?? []).filter((i) => i.ip || i.hostname);
    destinations.push({
      kind: "Destination",
      metadata: { name: discoveredName({ name, namespace, cluster: index.cluster }), cluster: index.cluster },
      spec: {
        name,
        namespace,
        cluster: index.cluster,
        mesh: meshName,
        labels: sortedRecord(service.metadata.labels),
        selector: sortedRecord(service.spec.selector),
        ports: portsOf(service),
        subsets: subsetsOf(backing),
        endpoints: endpointsOf(namespace, name),
        ...(ingress.length === 0
          ? {}
          : {
              externalAddresses: ingress
                .map((i) => ({ ...(i.ip ? { ip: i.ip } : {}), ...(i.hostname ? { hostname: i.hostname } : {}) }))
                .toSorted((a, b) => compareStrings(`${a.ip ?? ""}/${a.hostname ?? ""}`, `${b.ip ?? ""}/${b.hostname ?? ""}`)),
            }),
        workloads: backing.map((w) => w.metadata.name),
        dataPlane: destinationDataPlane(backing, namespace, namespaceLabels, mesh),
        ...(waypoint ? { waypoint } : {}),
      },
    });
  }
  return destinations.toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}
