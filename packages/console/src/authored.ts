/**
 * Resources authored in a cluster (docs/gitops.md#names-and-sources): stored as
 * `<name>.<namespace>.<cluster>` with `metadata.source`, read-only through the API. What the policy
 * list, a policy's page and the editor say of them. Pure.
 */
import type { ResourceView } from "@meshplane/core/views";

/**
 * `metadata.source` as the API returns it: the custom resource's cluster, namespace, name, uid and
 * generation. Core's schema of it (api/source.ts) lives in an entry that carries Node types, so the
 * console, which runs in a browser, reads the answer with this shape of its own.
 */
export interface ResourceSource {
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
  generation: number;
}

/** A resource as the API returns it, with where it came from when a cluster authored it. */
export type SourcedResource = ResourceView & { metadata: ResourceView["metadata"] & { source?: ResourceSource } };

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

/** Why it cannot be changed here, and where it can: in Git, or with kubectl in the authoring cluster. */
export function sourceNote(kind: string, source: ResourceSource): string {
  return `Authored in cluster ${source.cluster}: change it in Git, or with kubectl in that cluster (${kind} ${source.namespace}/${source.name}). It is read-only here.`;
}

/** What an admin is told before deleting it here: the agent submits it again while the custom resource exists. */
export function deleteWarning(kind: string, source: ResourceSource): string {
  return `The agent of cluster ${source.cluster} submits it again while the custom resource ${kind} ${source.namespace}/${source.name} exists there. Delete it here only for a cluster that is gone for good; otherwise delete the custom resource.`;
}

/**
 * The source block's rows: the cluster, the custom resource, its uid, and its generation beside the
 * stored one (two counters: the custom resource's last submitted generation, and meshplane's own).
 */
export function sourceFacts(source: ResourceSource, storedGeneration: number | undefined): [string, string][] {
  return [
    ["Cluster", source.cluster],
    ["Namespace", source.namespace],
    ["Name", source.name],
    ["UID", source.uid],
    ["Generation", `${source.generation} in the cluster; stored as generation ${storedGeneration ?? "-"}`],
  ];
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
