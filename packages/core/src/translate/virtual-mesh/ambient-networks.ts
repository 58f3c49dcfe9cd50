import type { Mesh } from "../../api/index";
import { compareStrings, pushTo } from "../compare";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";
import type { Membership, VirtualMesh } from "./membership";

/** The label on the Istio namespace that names a cluster's network. */
const NETWORK_LABEL = "topology.istio.io/network";

/** How a status names a member mesh: `mesh <name> (cluster <cluster>)`. */
export function describeMesh(mesh: Mesh): string {
  return `mesh ${mesh.metadata.name} (cluster ${mesh.spec.cluster})`;
}

function listed(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** Reports what one member's istiod lacks, as discovery shows it; nothing when discovery could not see it. */
function checkMember(mesh: Mesh, report: (error: string) => void): void {
  const seen = mesh.spec.istio?.ambient?.multiNetwork;
  if (seen === undefined) return;
  if (seen.enabled === false) {
    report(
      `${describeMesh(mesh)} runs istiod without AMBIENT_ENABLE_MULTI_NETWORK=true (its default is false), and without it Istio registers no istio-east-west GatewayClass and keeps every service to its own cluster: set it on istiod (helm: --set values.pilot.env.AMBIENT_ENABLE_MULTI_NETWORK=true)`,
    );
  }
  if (seen.network === undefined) {
    const ns = mesh.spec.namespace;
    report(
      `${describeMesh(mesh)} has no network: its namespace ${ns} has no ${NETWORK_LABEL} label, which is where Istio reads a cluster's network from: label it with a network no other member uses (kubectl label namespace ${ns} ${NETWORK_LABEL}=<network>) and install Istio with that global.network`,
    );
  }
}

/**
 * Reports members on the same network in different clusters: meshplane's ambient multicluster is
 * Istio's multi-network one, and Istio sends a caller to a remote workload on its own network
 * straight to the pod's address, not through the east-west gateway.
 */
function checkDistinctNetworks(own: readonly Mesh[], report: (mesh: Mesh, error: string) => void): void {
  const byNetwork = new Map<string, Mesh[]>();
  for (const mesh of own) {
    const network = mesh.spec.istio?.ambient?.multiNetwork?.network;
    if (network !== undefined) pushTo(byNetwork, network, mesh);
  }
  for (const [network, meshes] of byNetwork) {
    if (new Set(meshes.map((m) => m.spec.cluster)).size < 2) continue;
    for (const mesh of meshes) {
      const others = meshes.filter((m) => m.spec.cluster !== mesh.spec.cluster).map(describeMesh);
      report(
        mesh,
        `${describeMesh(mesh)} is on network ${network}, as ${listed(others)} ${others.length === 1 ? "is" : "are"}: Istio's ambient multicluster needs each cluster on a network of its own (on one network, a caller is sent straight to the remote pods' addresses, not through the east-west gateway): give each cluster its own ${NETWORK_LABEL} on namespace ${mesh.spec.namespace} and global.network`,
      );
    }
  }
}

/**
 * Reports members whose control planes run in namespaces of different names: an istiod reads a
 * remote cluster's network from the remote namespace named like its own, and finds none there.
 */
function checkSameNamespace(own: readonly Mesh[], report: (mesh: Mesh, error: string) => void): void {
  const namespaces = [...new Set(own.map((m) => m.spec.namespace))].sort(compareStrings);
  if (namespaces.length < 2) return;
  const where = namespaces.map(
    (ns) =>
      `${ns} (${own
        .filter((m) => m.spec.namespace === ns)
        .map((m) => m.metadata.name)
        .join(", ")})`,
  );
  for (const mesh of own) {
    report(
      mesh,
      `the members' control planes run in namespaces ${listed(where)}: an istiod reads another cluster's network from the namespace there named like its own, and finds none: install Istio in the same namespace in every cluster`,
    );
  }
}

/**
 * Reports, on each ambient VirtualMesh's member that Istio's multi-network ambient multicluster
 * would not serve (docs/ambient.md#ambient-multicluster), what discovery shows amiss: istiod without
 * `AMBIENT_ENABLE_MULTI_NETWORK=true`, a cluster without a network, two clusters on one network,
 * or control planes in namespaces of different names. A member whose agent did not report what
 * it needs (an older agent, a value from a ConfigMap or Secret) is not checked: unknown, not INVALID.
 * Returns the members reported.
 */
export function checkAmbientNetworks(members: readonly Membership[], reporter: Reporter): Set<Mesh> {
  const refused = new Set<Mesh>();
  const byVirtualMesh = new Map<VirtualMesh, Mesh[]>();
  for (const { mesh, virtualMesh } of members) pushTo(byVirtualMesh, virtualMesh, mesh);
  for (const [vm, own] of byVirtualMesh) {
    const report = (mesh: Mesh, error: string) => {
      refused.add(mesh);
      reporter.reportMesh(resourceKeyOf(vm), mesh.metadata.name, error);
    };
    for (const mesh of own) checkMember(mesh, (error) => report(mesh, error));
    checkDistinctNetworks(own, report);
    checkSameNamespace(own, report);
  }
  return refused;
}
