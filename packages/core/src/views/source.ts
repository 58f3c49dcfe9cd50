/**
 * What the console and the CLI say of a resource authored in a cluster (docs/gitops.md#names-and-sources):
 * stored as `<name>.<namespace>.<cluster>` with `metadata.source`, read-only through the API. Pure;
 * runs in a browser.
 */

/** `metadata.source` as the API returns it: the custom resource's cluster, namespace, name, uid and generation. */
export interface ResourceSourceView {
  cluster: string;
  namespace: string;
  name: string;
  uid: string;
  generation: number;
}

/** Why it cannot be changed through the API, and where it can: in Git, or with kubectl in the authoring cluster. */
export function sourceNote(kind: string, source: ResourceSourceView): string {
  return `Authored in cluster ${source.cluster}: change it in Git, or with kubectl in that cluster (${kind} ${source.namespace}/${source.name}). It is read-only here.`;
}

/** What an admin is told before deleting it: the agent submits it again while the custom resource exists. */
export function deleteWarning(kind: string, source: ResourceSourceView): string {
  return `The agent of cluster ${source.cluster} submits it again while the custom resource ${kind} ${source.namespace}/${source.name} exists there. Delete it here only for a cluster that is gone for good; otherwise delete the custom resource.`;
}

/**
 * Its facts in order: the cluster, the custom resource, its uid, and its generation beside the stored
 * one (two counters: the custom resource's last submitted generation, and meshplane's own).
 */
export function sourceFacts(source: ResourceSourceView, storedGeneration: number | undefined): [string, string][] {
  return [
    ["Cluster", source.cluster],
    ["Namespace", source.namespace],
    ["Name", source.name],
    ["UID", source.uid],
    ["Generation", `${source.generation} in the cluster; stored as generation ${storedGeneration ?? "-"}`],
  ];
}
