import type { Mesh, StoredResource } from "../../api/index";
import { claimOrder } from "./claim-order";
import { compareStrings, pushTo } from "../compare";
import type { Model } from "../input/model";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";

export type VirtualMesh = StoredResource<"VirtualMesh">;

/** A mesh accepted into a VirtualMesh. */
export interface Membership {
  mesh: Mesh;
  virtualMesh: VirtualMesh;
}

/** Meshes named by VirtualMeshes that can join one: found and Istio. Reports the others. */
function candidates(model: Model, reporter: Reporter): Map<string, VirtualMesh[]> {
  const claims = new Map<string, VirtualMesh[]>();
  for (const vm of model.virtualMeshes) {
    for (const name of new Set(vm.spec.meshes.map((m) => m.name))) {
      const mesh = model.meshes.get(name);
      if (mesh === undefined) reporter.reportMesh(resourceKeyOf(vm), name, `mesh ${name} ${model.missing(name)}`);
      else if (mesh.spec.type !== "istio") {
        reporter.reportMesh(resourceKeyOf(vm), name, `mesh ${name} is an ${mesh.spec.type} mesh; only Istio meshes can join a VirtualMesh`);
      } else pushTo(claims, name, vm);
    }
  }
  return claims;
}

/**
 * Decides which VirtualMesh each mesh belongs to (docs/resources.md#virtualmesh: at most one; the
 * later is INVALID for it). Two meshes in one Istio namespace (istiod revisions) share the root
 * namespace and the `cacerts` secret, so they must belong to the same VirtualMesh; the one
 * processed later (by mesh name) is refused. Returns mesh name → membership; refusals go to the
 * reporter.
 */
export function resolveMemberships(model: Model, reporter: Reporter): Map<string, Membership> {
  const members = new Map<string, Membership>();
  const namespaceOwner = new Map<string, Membership>();
  const claims = candidates(model, reporter);
  for (const name of [...claims.keys()].sort(compareStrings)) {
    const [winner, ...losers] = (claims.get(name) ?? []).sort(claimOrder(name));
    const mesh = model.meshes.get(name) as Mesh;
    for (const loser of losers) {
      reporter.reportMesh(resourceKeyOf(loser), name, `mesh ${name} already belongs to VirtualMesh ${winner?.metadata.name}`);
    }
    if (winner === undefined) continue;
    const namespace = `${mesh.spec.cluster}/${mesh.spec.namespace}`;
    const sharing = namespaceOwner.get(namespace);
    if (sharing !== undefined && sharing.virtualMesh !== winner) {
      reporter.reportMesh(
        resourceKeyOf(winner),
        name,
        `mesh ${name} shares the Istio namespace ${namespace} with mesh ${sharing.mesh.metadata.name} of VirtualMesh ${sharing.virtualMesh.metadata.name}; both must belong to one VirtualMesh`,
      );
      continue;
    }
    const membership = { mesh, virtualMesh: winner };
    members.set(name, membership);
    namespaceOwner.set(namespace, membership);
  }
  return members;
}
