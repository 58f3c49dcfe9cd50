import type { Destination, Mesh } from "../../api/index";
import { compareStrings } from "../compare";
import { istioAtLeast, routingApiOf } from "../gateway-api/routing-api";
import type { Model } from "../input/model";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";
import { reportGlobalServiceDrift } from "./ambient-drift";
import { type PlannedEastWestGateway, planEastWestGateways } from "./ambient-gateways";
import { checkAmbientNetworks, describeMesh } from "./ambient-networks";
import type { Membership, VirtualMesh } from "./membership";

/**
 * The Istio release whose ambient multicluster meshplane targets: multi-network multicluster in
 * ambient mode is beta from 1.29, alpha from 1.27 (docs/ambient.md#ambient-multicluster)
 */
export const AMBIENT_MULTICLUSTER_SINCE: readonly [number, number] = [1, 29];

/**
 * One service made global: the Service of one namespace and name, in every member mesh of the
 * VirtualMesh where it exists. Istio merges them into one service by their cluster-local name.
 */
export interface GlobalService {
  virtualMesh: VirtualMesh;
  namespace: string;
  name: string;
  /** The Service in each member mesh where it exists, by cluster then mesh name. */
  destinations: readonly Destination[];
}

/** What VirtualMeshes federating ambient meshes make of them (docs/ambient.md#ambient-multicluster). */
export interface AmbientFederation {
  /** VirtualMeshes that federate the ambient way, by name. */
  virtualMeshes: ReadonlySet<VirtualMesh>;
  /** Their member meshes, each of which gets an east-west gateway, by mesh name. */
  members: readonly Membership[];
  /** Their global services, by VirtualMesh, namespace and name. */
  globalServices: readonly GlobalService[];
  /** The east-west gateways meshplane generates for them, by mesh name (docs/ambient.md#ambient-multicluster). */
  eastWestGateways: readonly PlannedEastWestGateway[];
}

/** Whether a member mesh takes part in Istio's ambient data plane with Gateway API output. */
function ambientMember(mesh: Mesh, members: ReadonlyMap<string, Membership>): boolean {
  return mesh.spec.istio?.ambient !== undefined && routingApiOf(mesh, members) === "GATEWAY_API";
}

/**
 * The VirtualMeshes that federate the ambient way: they federate something (`federation.selectors`)
 * and every member runs ztunnel with Gateway API output. One where only some members do federates
 * the sidecar way, as before; that is reported on the ambient members, naming the others.
 */
function ambientVirtualMeshes(model: Model, members: ReadonlyMap<string, Membership>, reporter: Reporter): Set<VirtualMesh> {
  const out = new Set<VirtualMesh>();
  for (const vm of model.virtualMeshes) {
    if ((vm.spec.federation?.selectors ?? []).length === 0) continue;
    const own = [...members.values()].filter((m) => m.virtualMesh === vm).map((m) => m.mesh);
    const ambient = own.filter((m) => ambientMember(m, members));
    if (ambient.length === 0) continue;
    if (ambient.length === own.length) {
      out.add(vm);
      continue;
    }
    const others = own.filter((m) => !ambient.includes(m)).map(describeMesh);
    for (const mesh of ambient) {
      reporter.reportMesh(
        resourceKeyOf(vm),
        mesh.metadata.name,
        `ambient multicluster needs ztunnel and routing.api GATEWAY_API in every member, and ${others.join(", ")} ${others.length === 1 ? "has" : "have"} not: VirtualMesh ${vm.metadata.name} federates the sidecar way, which ${describeMesh(mesh)}'s ambient workloads do not take part in`,
      );
    }
  }
  return out;
}

/** Reports each member whose Istio cannot do ambient multicluster; returns them. */
function checkVersions(members: readonly Membership[], reporter: Reporter): Set<Mesh> {
  const [major, minor] = AMBIENT_MULTICLUSTER_SINCE;
  const refused = new Set<Mesh>();
  for (const { mesh, virtualMesh } of members) {
    if (istioAtLeast(mesh, AMBIENT_MULTICLUSTER_SINCE)) continue;
    refused.add(mesh);
    reporter.reportMesh(
      resourceKeyOf(virtualMesh),
      mesh.metadata.name,
      `${describeMesh(mesh)} runs Istio ${mesh.spec.version || "of an unknown version"}, and meshplane federates ambient meshes for Istio ${major}.${minor} and later (multi-network ambient multicluster is beta there); upgrade its Istio`,
    );
  }
  return refused;
}

/**
 * The global services of one ambient VirtualMesh: every namespace/name its `federation.selectors`
 * select in some member, with that Service in every member where it exists (Istio keeps a
 * service's local copy to itself unless it is global there too).
 */
function globalServicesOf(vm: VirtualMesh, selected: readonly Destination[], own: readonly Mesh[], model: Model): GlobalService[] {
  const names = new Map<string, { namespace: string; name: string }>();
  for (const d of selected) names.set(`${d.spec.namespace}/${d.spec.name}`, { namespace: d.spec.namespace, name: d.spec.name });
  return [...names.keys()].sort(compareStrings).map((key) => {
    const { namespace, name } = names.get(key) as { namespace: string; name: string };
    const destinations = own.flatMap((mesh) => {
      const d = model.destinationByRef({ cluster: mesh.spec.cluster, namespace, name });
      return d !== undefined && d.spec.mesh === mesh.metadata.name ? [d] : [];
    });
    return { virtualMesh: vm, namespace, name, destinations };
  });
}

/**
 * Plans ambient multicluster (docs/ambient.md#ambient-multicluster): which VirtualMeshes federate
 * the ambient way, their members, and their global services, with `select(vm)` giving the
 * destinations a VirtualMesh's selectors pick in its members (reporting bad refs), and the east-west
 * gateway of each member Istio can serve. Reports members whose Istio is too old or not set up for
 * multi-network, and every difference between members that Istio needs to be identical.
 */
export function planAmbientFederation(
  model: Model,
  members: ReadonlyMap<string, Membership>,
  select: (vm: VirtualMesh) => readonly Destination[],
  reporter: Reporter,
): AmbientFederation {
  const virtualMeshes = ambientVirtualMeshes(model, members, reporter);
  const ambientMembers = [...members.values()]
    .filter((m) => virtualMeshes.has(m.virtualMesh))
    .sort((a, b) => compareStrings(a.mesh.metadata.name, b.mesh.metadata.name));
  const refused = new Set([...checkVersions(ambientMembers, reporter), ...checkAmbientNetworks(ambientMembers, reporter)]);
  const globalServices: GlobalService[] = [];
  for (const vm of virtualMeshes) {
    const own = ambientMembers.filter((m) => m.virtualMesh === vm).map((m) => m.mesh);
    own.sort((a, b) => compareStrings(a.spec.cluster, b.spec.cluster) || compareStrings(a.metadata.name, b.metadata.name));
    for (const service of globalServicesOf(vm, select(vm), own, model)) {
      reportGlobalServiceDrift(service, model, reporter);
      globalServices.push(service);
    }
  }
  const eastWestGateways = planEastWestGateways(
    ambientMembers.filter((m) => !refused.has(m.mesh)),
    globalServices,
  );
  return { virtualMeshes, members: ambientMembers, globalServices, eastWestGateways };
}
