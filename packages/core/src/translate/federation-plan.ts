import type { Destination, Gateway, Mesh, VirtualMeshSpec } from "../api/index";
import { compareStrings, pushTo } from "./compare";
import { eastWestGateways } from "./east-west-gateways";
import type { Membership, VirtualMesh } from "./membership";
import { type Model, refKey } from "./model";
import { type Reporter, resourceKey } from "./reporter";
import { selectDestinations } from "./selectors";
import { allocateVirtualIps } from "./virtual-ip";

type FederationSelector = NonNullable<NonNullable<VirtualMeshSpec["federation"]>["selectors"]>[number];

export const DEFAULT_HOSTNAME_SUFFIX = "global";

/** One destination made reachable from other meshes of its VirtualMesh. */
export interface FederatedExport {
  destination: Destination;
  virtualMesh: VirtualMesh;
  /** `<svc>.<ns>.svc.<cluster>.<suffix>` */
  host: string;
  /** Virtual IP in 240.0.0.0/4. */
  address: string;
  /** Meshes it is federated to, sorted by name; never its own mesh or a mesh in its own cluster. */
  targets: Mesh[];
  targetNames: ReadonlySet<string>;
  /** East-west gateways of its own mesh, which remote clients connect to. */
  gateways: Gateway[];
}

export interface FederationPlan {
  members: ReadonlyMap<string, Membership>;
  /** By destination name, sorted by name. */
  exports: ReadonlyMap<string, FederatedExport>;
}

/** Member meshes federated destinations of selector `i` go to; refs to non-members are reported. */
function targetMeshes(vm: VirtualMesh, selector: FederationSelector, i: number, members: ReadonlyMap<string, Membership>, reporter: Reporter): Mesh[] {
  const own = [...members.values()].filter((m) => m.virtualMesh === vm).map((m) => m.mesh);
  if (selector.meshes === undefined || selector.meshes.length === 0) return own;
  return selector.meshes.flatMap(({ name }) => {
    const member = members.get(name);
    if (member?.virtualMesh === vm) return [member.mesh];
    reporter.report(resourceKey(vm), undefined, `federation.selectors[${i}].meshes: mesh ${name} is not a member of this VirtualMesh`);
    return [];
  });
}

/** Destinations selector `i` federates: those its destinationSelectors match in member meshes. */
function sources(model: Model, vm: VirtualMesh, selector: FederationSelector, i: number, members: ReadonlyMap<string, Membership>, reporter: Reporter): Destination[] {
  const key = resourceKey(vm);
  const inVm = (d: Destination) => members.get(d.spec.mesh)?.virtualMesh === vm;
  const { matched, missing } = selectDestinations(model, selector.destinationSelectors);
  for (const ref of missing) reporter.report(key, undefined, `federation.selectors[${i}]: service ${ref} not found`);
  for (const ref of (selector.destinationSelectors ?? []).flatMap((s) => s.kubeServiceRefs?.services ?? [])) {
    const destination = model.destinationByRef(ref);
    if (destination !== undefined && !inVm(destination)) {
      reporter.report(key, undefined, `federation.selectors[${i}]: service ${refKey(ref)} is not in a mesh of this VirtualMesh`);
    }
  }
  return matched.filter(inVm);
}

/** Destination name → meshes it goes to, over every selector of every VirtualMesh. */
function collectTargets(model: Model, members: ReadonlyMap<string, Membership>, reporter: Reporter): Map<string, Map<string, Mesh>> {
  const targets = new Map<string, Map<string, Mesh>>();
  for (const vm of model.virtualMeshes) {
    (vm.spec.federation?.selectors ?? []).forEach((selector, i) => {
      const meshes = targetMeshes(vm, selector, i, members, reporter);
      for (const destination of sources(model, vm, selector, i, members, reporter)) {
        for (const mesh of meshes) {
          if (mesh.metadata.name === destination.spec.mesh || mesh.spec.cluster === destination.spec.cluster) continue;
          const set = targets.get(destination.metadata.name) ?? new Map<string, Mesh>();
          targets.set(destination.metadata.name, set.set(mesh.metadata.name, mesh));
        }
      }
    });
  }
  return targets;
}

/**
 * What each VirtualMesh federates (API.md §4): for every selector, the destinations it matches in
 * member meshes go to the member meshes it names (all members when it names none). A source mesh
 * without a usable east-west gateway cannot export anything: that is reported on the mesh and its
 * destinations stay local. Selector refs to unknown services or non-member meshes are errors on the
 * VirtualMesh; the rest of the VirtualMesh still applies, because dropping trust and federation over a
 * typo would cut every cross-cluster call.
 */
export function planFederation(model: Model, members: ReadonlyMap<string, Membership>, reporter: Reporter): FederationPlan {
  const targets = collectTargets(model, members, reporter);
  const byMesh = new Map<string, Destination[]>();
  for (const name of targets.keys()) {
    const destination = model.destinations.get(name) as Destination;
    pushTo(byMesh, destination.spec.mesh, destination);
  }
  const gatewaysOf = new Map<string, Gateway[]>();
  for (const [meshName, destinations] of byMesh) {
    const member = members.get(meshName) as Membership;
    const gateways = eastWestGateways(member.mesh, member.virtualMesh.spec.federation?.eastWestGateways);
    if (gateways.length > 0) gatewaysOf.set(meshName, gateways);
    else {
      const count = destinations.length;
      reporter.reportMesh(resourceKey(member.virtualMesh), meshName, `mesh ${meshName} has no east-west gateway with a TLS port and an address; its ${count} selected destination(s) are not federated`);
    }
  }
  const exported = [...targets.keys()].sort(compareStrings).map((n) => model.destinations.get(n) as Destination).filter((d) => gatewaysOf.has(d.spec.mesh));
  const addresses = allocateVirtualIps(exported);
  const exports = new Map<string, FederatedExport>();
  for (const destination of exported) {
    const name = destination.metadata.name;
    const member = members.get(destination.spec.mesh) as Membership;
    const meshes = [...(targets.get(name) as Map<string, Mesh>).values()].sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
    const { name: svc, namespace, cluster } = destination.spec;
    const suffix = member.virtualMesh.spec.federation?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX;
    exports.set(name, {
      destination,
      virtualMesh: member.virtualMesh,
      host: `${svc}.${namespace}.svc.${cluster}.${suffix}`,
      address: addresses.get(name) as string,
      targets: meshes,
      targetNames: new Set(meshes.map((m) => m.metadata.name)),
      gateways: gatewaysOf.get(destination.spec.mesh) as Gateway[],
    });
  }
  return { members, exports };
}
