import { z } from "zod";
import { dnsLabel } from "../api/common";
import type { FieldError } from "../errors";
import type { DestinationSelector } from "../api/selectors";
import type { StoredResource, UserDocument, UserKind } from "../api/resource";

/** Every cluster of the tenant, in a grant's `clusters`. */
export const EVERY_CLUSTER = "*";

const AUTHORED_KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const satisfies readonly UserKind[];

/**
 * What a cluster may author (docs/gitops.md#grants): the kinds, and the clusters whose destinations
 * and meshes its resources may select (`["*"]`: every cluster of the tenant). Without a grant of its
 * own, a cluster has DEFAULT_GRANT_KINDS over itself alone.
 */
export const authoringGrant = z.strictObject({
  kinds: z.array(z.enum(AUTHORED_KINDS)).max(AUTHORED_KINDS.length),
  clusters: z
    .array(z.union([z.literal(EVERY_CLUSTER), dnsLabel]))
    .min(1, "must name at least one cluster, or *")
    .max(1000)
    .refine((c) => !c.includes(EVERY_CLUSTER) || c.length === 1, { message: "* stands alone: it means every cluster" }),
});
export type AuthoringGrant = z.infer<typeof authoringGrant>;

/** The kinds a cluster may author by default: policies, never a VirtualMesh (docs/gitops.md#grants). */
export const DEFAULT_GRANT_KINDS: readonly UserKind[] = ["TrafficPolicy", "AccessPolicy"];

/** The grant of `cluster`: the one a tenant admin set (`given`), else the default — its own cluster only. */
export function grantOf(cluster: string, given: AuthoringGrant | undefined): AuthoringGrant {
  return given ?? { kinds: [...DEFAULT_GRANT_KINDS] as AuthoringGrant["kinds"], clusters: [cluster] };
}

const reaches = (grant: AuthoringGrant, cluster: string): boolean => grant.clusters[0] === EVERY_CLUSTER || grant.clusters.includes(cluster);

const describe = (author: string, grant: AuthoringGrant): string =>
  `cluster ${author}'s grant (kinds: ${grant.kinds.join(", ") || "none"}; clusters: ${grant.clusters.join(", ")})`;

/** Where a resource selects destinations: each list of destination selectors with its path. */
function destinationLists(doc: Pick<UserDocument, "kind" | "spec">): { path: string; selectors: readonly DestinationSelector[] | undefined; single?: true }[] {
  if (doc.kind === "VirtualMesh") {
    const spec = doc.spec as StoredResource<"VirtualMesh">["spec"];
    return [
      ...(spec.federation?.selectors ?? []).map((s, i) => ({
        path: `spec.federation.selectors[${i}].destinationSelectors`,
        selectors: s.destinationSelectors,
      })),
      ...(spec.federation?.eastWestGateways ?? []).map((g, i) => ({
        path: `spec.federation.eastWestGateways[${i}].destinationSelector`,
        selectors: [g.destinationSelector],
        single: true as const,
      })),
    ];
  }
  const spec = doc.spec as { destinationSelector?: DestinationSelector[] };
  return [{ path: "spec.destinationSelector", selectors: spec.destinationSelector }];
}

/**
 * What in `doc`, authored by cluster `author`, lies outside `grant` (docs/gitops.md#grants): a kind
 * it may not author, a cluster named in a destination selector (matcher or ref) that the grant does
 * not reach, a member mesh of another cluster (`meshCluster` gives a mesh's cluster, when known).
 * Empty: the resource is within its grant. Label selectors that name no cluster are not errors: they
 * are clipped (clipToGrant).
 */
export function grantErrors(
  doc: Pick<UserDocument, "kind" | "spec">,
  author: string,
  grant: AuthoringGrant,
  meshCluster: (mesh: string) => string | undefined = () => undefined,
): FieldError[] {
  if (!grant.kinds.includes(doc.kind)) {
    return [{ path: "kind", message: `${describe(author, grant)} does not allow ${doc.kind}; a tenant admin can widen it (docs/gitops.md#grants)` }];
  }
  const errors: FieldError[] = [];
  const outside = (path: string, cluster: string, what: string) => {
    if (!reaches(grant, cluster)) errors.push({ path, message: `${what} cluster ${cluster}, outside ${describe(author, grant)}` });
  };
  for (const { path, selectors, single } of destinationLists(doc)) {
    (selectors ?? []).forEach((s, i) => {
      const at = single ? path : `${path}[${i}]`;
      (s.kubeServiceMatcher?.clusters ?? []).forEach((c, j) => outside(`${at}.kubeServiceMatcher.clusters[${j}]`, c, "selects"));
      (s.kubeServiceRefs?.services ?? []).forEach((ref, j) => outside(`${at}.kubeServiceRefs.services[${j}].cluster`, ref.cluster, "names a service of"));
    });
  }
  if (doc.kind === "VirtualMesh") {
    const spec = doc.spec as StoredResource<"VirtualMesh">["spec"];
    const meshLists = [
      { path: "spec.meshes", refs: spec.meshes },
      ...(spec.federation?.selectors ?? []).map((s, i) => ({ path: `spec.federation.selectors[${i}].meshes`, refs: s.meshes ?? [] })),
      { path: "spec.routing.waypointMeshes", refs: spec.routing?.waypointMeshes ?? [] },
    ];
    for (const { path, refs } of meshLists) {
      refs.forEach((ref, i) => {
        const cluster = meshCluster(ref.name);
        if (cluster !== undefined) outside(`${path}[${i}].name`, cluster, `names mesh ${ref.name} of`);
      });
    }
  }
  return errors;
}

/** A destination selector list narrowed to `clusters`: a matcher without clusters gets them; no selector becomes one matcher of them. */
function clipSelectors(selectors: readonly DestinationSelector[] | undefined, clusters: string[]): DestinationSelector[] {
  if (selectors === undefined || selectors.length === 0) return [{ kubeServiceMatcher: { clusters } }];
  return selectors.map((s) =>
    s.kubeServiceMatcher !== undefined && (s.kubeServiceMatcher.clusters ?? []).length === 0
      ? { ...s, kubeServiceMatcher: { ...s.kubeServiceMatcher, clusters } }
      : s,
  );
}

/**
 * `spec` of a resource within its grant (grantErrors empty) with every destination selector that names
 * no cluster narrowed to the grant's clusters (docs/gitops.md#grants), so the resource never reaches a
 * cluster registered later. Returns `spec` itself when the grant reaches every cluster.
 */
export function clipToGrant<S>(kind: UserKind, spec: S, grant: AuthoringGrant): S {
  if (grant.clusters[0] === EVERY_CLUSTER) return spec;
  const clusters = [...grant.clusters];
  if (kind !== "VirtualMesh") {
    const policy = spec as { destinationSelector?: DestinationSelector[] };
    return { ...spec, destinationSelector: clipSelectors(policy.destinationSelector, clusters) };
  }
  const vm = spec as StoredResource<"VirtualMesh">["spec"];
  if (vm.federation === undefined) return spec;
  return {
    ...spec,
    federation: {
      ...vm.federation,
      ...(vm.federation.selectors
        ? { selectors: vm.federation.selectors.map((s) => ({ ...s, destinationSelectors: clipSelectors(s.destinationSelectors, clusters) })) }
        : {}),
      ...(vm.federation.eastWestGateways
        ? {
            eastWestGateways: vm.federation.eastWestGateways.map((g) => ({
              ...g,
              destinationSelector: clipSelectors([g.destinationSelector], clusters)[0] as DestinationSelector,
            })),
          }
        : {}),
    },
  };
}
