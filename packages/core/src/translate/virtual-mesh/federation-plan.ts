import type { Destination, Gateway, Mesh, VirtualMeshSpec } from "../../api/index";
import { compareStrings, pushTo } from "../compare";
import { eastWestGateways } from "./east-west-gateways";
import type { Membership, VirtualMesh } from "./membership";
import { type Model, refKey } from "../input/model";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";
import { selectDestinations } from "../input/selectors";
import { generatedName } from "../output/naming";
import type { Parent } from "../output/sink";
import { allocateVirtualIps } from "./virtual-ip";
import { type AmbientFederation, planAmbientFederation } from "./ambient-federation";

type FederationSelector = NonNullable<NonNullable<VirtualMeshSpec["federation"]>["selectors"]>[number];

import { federatedHost } from "./federated-host";

export { DEFAULT_HOSTNAME_SUFFIX, federatedHost } from "./federated-host";

/** One destination made reachable from other meshes of its VirtualMesh. */
export interface FederatedExport {
  destination: Destination;
  virtualMesh: VirtualMesh;
  /** `<svc>.<ns>.svc.<cluster>.<suffix>` */
  host: string;
  /** Virtual IP in 240.0.0.0/4. */
  address: string;
  /** Meshes it is federated to, sorted by name; never its own mesh or a mesh in its own cluster. Shared: do not mutate. */
  targets: readonly Mesh[];
  targetNames: ReadonlySet<string>;
  /** East-west gateways of its own mesh, which remote clients connect to. */
  gateways: Gateway[];
  /** `generatedName(host)`: the name of every object generated for the federated host. */
  objectName: string;
  /** `[{kind: VirtualMesh, name}]`, one array per VirtualMesh so objects share their parents annotation. */
  virtualMeshParents: readonly Parent[];
}

/** Which meshes belong to which VirtualMesh, and which destinations go where. */
export interface FederationPlan {
  members: ReadonlyMap<string, Membership>;
  /** By destination name, sorted by name. */
  exports: ReadonlyMap<string, FederatedExport>;
  /** VirtualMeshes that federate the ambient way instead (none of their destinations is in `exports`). */
  ambient: AmbientFederation;
}

/** Member meshes federated destinations of selector `i` go to; refs to non-members are reported. */
function targetMeshes(vm: VirtualMesh, selector: FederationSelector, i: number, members: ReadonlyMap<string, Membership>, reporter: Reporter): Mesh[] {
  const own = [...members.values()].filter((m) => m.virtualMesh === vm).map((m) => m.mesh);
  if (selector.meshes === undefined || selector.meshes.length === 0) return own;
  return selector.meshes.flatMap(({ name }) => {
    const member = members.get(name);
    if (member?.virtualMesh === vm) return [member.mesh];
    reporter.report(resourceKeyOf(vm), undefined, `federation.selectors[${i}].meshes: mesh ${name} is not a member of this VirtualMesh`);
    return [];
  });
}

/** Destinations selector `i` federates: those its destinationSelectors match in member meshes. */
function sources(
  model: Model,
  vm: VirtualMesh,
  selector: FederationSelector,
  i: number,
  members: ReadonlyMap<string, Membership>,
  reporter: Reporter,
): Destination[] {
  const key = resourceKeyOf(vm);
  const inVm = (d: Destination) => members.get(d.spec.mesh)?.virtualMesh === vm;
  const { matched, missing } = selectDestinations(model, selector.destinationSelectors);
  for (const ref of missing) reporter.report(key, undefined, `federation.selectors[${i}]: service ${ref} ${model.missing(ref)}`);
  for (const ref of (selector.destinationSelectors ?? []).flatMap((s) => s.kubeServiceRefs?.services ?? [])) {
    const destination = model.destinationByRef(ref);
    if (destination !== undefined && !inVm(destination)) {
      reporter.report(key, undefined, `federation.selectors[${i}]: service ${refKey(ref)} is not in a mesh of this VirtualMesh`);
    }
  }
  return matched.filter(inVm);
}

/**
 * The destinations an ambient VirtualMesh's selectors pick in its members. A global service is
 * global to every member cluster, so a selector naming `meshes` is reported: Istio cannot honour it.
 */
function globallySelected(model: Model, vm: VirtualMesh, members: ReadonlyMap<string, Membership>, reporter: Reporter): Destination[] {
  return (vm.spec.federation?.selectors ?? []).flatMap((selector, i) => {
    if ((selector.meshes ?? []).length > 0) {
      reporter.report(
        resourceKeyOf(vm),
        undefined,
        `federation.selectors[${i}].meshes: ambient multicluster makes a service global to every member cluster; remove meshes`,
      );
    }
    return sources(model, vm, selector, i, members, reporter);
  });
}

/** A mesh set shared by every destination with the same source mesh and matching selectors. */
interface Targets {
  meshes: Mesh[];
  names: ReadonlySet<string>;
}

/**
 * Destination name → the meshes it goes to, over every selector of every VirtualMesh. Destinations
 * of one mesh matched by the same selectors go to the same meshes, so those share one (sorted) list
 * and set: with everything federated everywhere that is 100 lists instead of 10,000.
 */
function collectTargets(model: Model, members: ReadonlyMap<string, Membership>, reporter: Reporter, ambient: ReadonlySet<VirtualMesh>): Map<string, Targets> {
  const selectorMeshes: Mesh[][] = [];
  const matchedBy = new Map<string, number[]>();
  for (const vm of model.virtualMeshes) {
    if (ambient.has(vm)) continue;
    (vm.spec.federation?.selectors ?? []).forEach((selector, i) => {
      const id = selectorMeshes.push(targetMeshes(vm, selector, i, members, reporter)) - 1;
      for (const destination of sources(model, vm, selector, i, members, reporter)) pushTo(matchedBy, destination.metadata.name, id);
    });
  }
  const shared = new Map<string, Targets>();
  const out = new Map<string, Targets>();
  for (const [name, ids] of matchedBy) {
    const destination = model.destinations.get(name) as Destination;
    const key = `${destination.spec.mesh}|${ids.join(",")}`;
    let targets = shared.get(key);
    if (targets === undefined) {
      const meshes = new Map<string, Mesh>();
      for (const mesh of ids.flatMap((id) => selectorMeshes[id] ?? [])) {
        if (mesh.metadata.name !== destination.spec.mesh && mesh.spec.cluster !== destination.spec.cluster) meshes.set(mesh.metadata.name, mesh);
      }
      const sorted = [...meshes.values()].sort((a, b) => compareStrings(a.metadata.name, b.metadata.name));
      shared.set(key, (targets = { meshes: sorted, names: new Set(meshes.keys()) }));
    }
    if (targets.meshes.length > 0) out.set(name, targets);
  }
  return out;
}

/**
 * East-west gateways of each mesh that has destinations to export. A mesh without a usable one
 * cannot export anything: that is reported on the mesh and its destinations stay local.
 */
function exportingGateways(model: Model, names: Iterable<string>, members: ReadonlyMap<string, Membership>, reporter: Reporter): Map<string, Gateway[]> {
  const byMesh = new Map<string, Destination[]>();
  for (const name of names) {
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
      reporter.reportMesh(
        resourceKeyOf(member.virtualMesh),
        meshName,
        `mesh ${meshName} has no east-west gateway with a TLS port and an address; its ${count} selected destination(s) are not federated`,
      );
    }
  }
  return gatewaysOf;
}

/**
 * What each VirtualMesh federates (docs/resources.md#virtualmesh): for every selector, the
 * destinations it matches in member meshes go to the member meshes it names (all members when it
 * names none), provided their own mesh has an east-west gateway. Selector refs to unknown services
 * or non-member meshes are errors on the VirtualMesh; the rest of the VirtualMesh still applies,
 * because dropping trust and federation over a typo would cut every cross-cluster call.
 */
export function planFederation(model: Model, members: ReadonlyMap<string, Membership>, reporter: Reporter): FederationPlan {
  const ambient = planAmbientFederation(model, members, (vm) => globallySelected(model, vm, members, reporter), reporter);
  const targets = collectTargets(model, members, reporter, ambient.virtualMeshes);
  const gatewaysOf = exportingGateways(model, targets.keys(), members, reporter);
  const exported = [...targets.keys()]
    .sort(compareStrings)
    .map((n) => model.destinations.get(n) as Destination)
    .filter((d) => gatewaysOf.has(d.spec.mesh));
  const addresses = allocateVirtualIps(exported);
  const exports = new Map<string, FederatedExport>();
  const parents = new Map<VirtualMesh, readonly Parent[]>();
  for (const destination of exported) {
    const name = destination.metadata.name;
    const vm = (members.get(destination.spec.mesh) as Membership).virtualMesh;
    const { meshes, names } = targets.get(name) as Targets;
    const host = federatedHost(destination.spec, vm);
    if (!parents.has(vm)) parents.set(vm, [{ kind: "VirtualMesh", name: vm.metadata.name }]);
    exports.set(name, {
      destination,
      virtualMesh: vm,
      host,
      objectName: generatedName(host),
      virtualMeshParents: parents.get(vm) as readonly Parent[],
      address: addresses.get(name) as string,
      targets: meshes,
      targetNames: names,
      gateways: gatewaysOf.get(destination.spec.mesh) as Gateway[],
    });
  }
  return { members, exports, ambient };
}
