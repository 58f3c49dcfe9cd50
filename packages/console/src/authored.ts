/**
 * Resources authored in a cluster (docs/gitops.md#names-and-sources): stored as
 * `<name>.<namespace>.<cluster>` with `metadata.source`, read-only through the API. What the policy
 * list, a policy's page and the editor say of them. Pure.
 */
import { type ResourceSourceView as ResourceSource, type ResourceView, deleteWarning, sourceFacts, sourceNote } from "@meshplane/core/views";

export { type ResourceSource, deleteWarning, sourceFacts, sourceNote };

/** A resource as the API returns it, with where it came from when a cluster authored it. */
export type SourcedResource = ResourceView;

/**
 * Whether `name` is an authored resource's: names the API takes are DNS labels, without a dot, and an
 * authored one is `<name>.<namespace>.<cluster>` (docs/gitops.md#names-and-sources). What a page can
 * tell from its route alone, before the resource is read.
 */
export function isAuthoredName(name: string): boolean {
  return name.includes(".");
}

/** Where `r` came from, or undefined when it was created through the API. */
export function sourceOf(r: { metadata: { source?: ResourceSource } }): ResourceSource | undefined {
  return r.metadata.source;
}

/** The list's marker: `from cluster east · shop/cart-retries`. */
export function sourceLabel(source: ResourceSource): string {
  return `from cluster ${source.cluster} · ${source.namespace}/${source.name}`;
}

/** The list's "Source" filter: `api` (created through the API), `cluster:<name>`, or "" for all. */
export function matchesSourceFilter(r: { metadata: { source?: ResourceSource } }, filter: string): boolean {
  if (filter === "") return true;
  const source = sourceOf(r);
  if (filter === "api") return source === undefined;
  return source !== undefined && filter === `cluster:${source.cluster}`;
}

/** The clusters that authored any of `all`, in name order: the filter's choices. */
export function authoringClusters(all: readonly { metadata: { source?: ResourceSource } }[]): string[] {
  return [...new Set(all.flatMap((r) => (r.metadata.source ? [r.metadata.source.cluster] : [])))].sort();
}
