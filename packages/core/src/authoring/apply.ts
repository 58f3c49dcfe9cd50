import type { StoredResource } from "../api/resource";
import type { ResourceStatus } from "../api/status";
import type { TranslateInput } from "../translate/types";
import { canonicalJson } from "../translate/output/canonical";
import { type AuthoringGrant, clipToGrant, grantErrors, grantOf } from "./grant";

/** A resource authored in a cluster that its grant no longer allows, with the status that says why. */
export interface Refused {
  resource: StoredResource;
  status: ResourceStatus;
}

type Lists = Pick<TranslateInput, "virtualMeshes" | "trafficPolicies" | "accessPolicies">;

interface Kept {
  key: string;
  out: StoredResource | Refused;
}

/**
 * The grant step of translation (docs/gitops.md#grants): each resource authored in a cluster
 * (metadata.source) is translated with its destination selectors clipped to its cluster's grant, or —
 * when the grant does not allow it (its kind, a cluster it names, a mesh of another cluster, a
 * cluster no longer registered) — not at all, and becomes INVALID with the reasons. Resources created
 * through the API pass unchanged. Memoized per resource object and grant, so an unchanged resource
 * stays the same object between calls (the incremental Translator keeps its work by identity).
 */
export class GrantStep {
  private kept = new WeakMap<StoredResource, Kept>();

  apply(input: TranslateInput): { input: TranslateInput; refused: Refused[] } {
    if (![input.virtualMeshes, input.trafficPolicies, input.accessPolicies].some((list) => list.some((r) => r.metadata.source !== undefined))) {
      return { input, refused: [] };
    }
    const registered = new Set(input.clusters);
    const meshClusters = new Map(input.meshes.map((m) => [m.metadata.name, m.spec.cluster]));
    const refused: Refused[] = [];
    const one = <R extends StoredResource>(resource: R): R | undefined => {
      const source = resource.metadata.source;
      if (source === undefined) return resource;
      const grant = grantOf(source.cluster, input.grants?.[source.cluster]);
      const meshes = resource.kind === "VirtualMesh" ? meshesOf(resource as StoredResource<"VirtualMesh">).map((m) => meshClusters.get(m) ?? "") : [];
      const key = canonicalJson({ grant, registered: registered.has(source.cluster), meshes });
      let kept = this.kept.get(resource);
      if (kept?.key !== key) {
        kept = { key, out: granted(resource, grant, registered.has(source.cluster), (mesh) => meshClusters.get(mesh)) };
        this.kept.set(resource, kept);
      }
      if ("status" in kept.out && "resource" in kept.out) {
        refused.push(kept.out);
        return undefined;
      }
      return kept.out as R;
    };
    const lists: Lists = {
      virtualMeshes: input.virtualMeshes.flatMap((r) => one(r) ?? []),
      trafficPolicies: input.trafficPolicies.flatMap((r) => one(r) ?? []),
      accessPolicies: input.accessPolicies.flatMap((r) => one(r) ?? []),
    };
    return { input: { ...input, ...lists }, refused };
  }
}

const meshesOf = (vm: StoredResource<"VirtualMesh">): string[] => [
  ...vm.spec.meshes.map((m) => m.name),
  ...(vm.spec.federation?.selectors ?? []).flatMap((s) => (s.meshes ?? []).map((m) => m.name)),
  ...(vm.spec.routing?.waypointMeshes ?? []).map((m) => m.name),
];

function granted(
  resource: StoredResource,
  grant: AuthoringGrant,
  registered: boolean,
  meshCluster: (mesh: string) => string | undefined,
): StoredResource | Refused {
  const author = resource.metadata.source?.cluster as string;
  const reasons = registered
    ? grantErrors(resource, author, grant, meshCluster).map((e) => `${e.path}: ${e.message}`)
    : [`cluster ${author}, where this resource was authored, is no longer registered`];
  if (reasons.length > 0) {
    return { resource, status: { observedGeneration: resource.metadata.generation, state: "INVALID", errors: reasons } };
  }
  const spec = clipToGrant(resource.kind, resource.spec, grant);
  return spec === resource.spec ? resource : ({ ...resource, spec } as StoredResource);
}
