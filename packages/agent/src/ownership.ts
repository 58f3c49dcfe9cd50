import { LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT } from "@meshplane/core";

// Which objects are the agent's: the one rule apply, prune and the certificate stage all check. The
// agent writes only objects carrying meshplane's three owner labels for its own tenant and cluster,
// and deletes nothing else (docs/agent.md#stages, items 5 and 6).

/** The tenant and cluster this agent registered as: every object it owns names both. */
export interface Scope {
  tenant: string;
  cluster: string;
}

/**
 * What the agent does to the kinds meshplane generates, and so all the chart's ClusterRole grants on
 * them (its test holds the chart to exactly this): apply is a server-side-apply PATCH, which the
 * apiserver also checks as `create` when the object is new; prune lists by owner labels and deletes.
 */
export const GENERATED_KIND_VERBS = ["create", "delete", "list", "patch"] as const;

/** meshplane's owner labels for this scope: every object the agent writes carries all three. */
export const ownerLabels = (scope: Scope): Record<string, string> => ({
  [LABEL_MANAGED_BY]: "meshplane",
  [LABEL_TENANT]: scope.tenant,
  [LABEL_CLUSTER]: scope.cluster,
});

/** Whether `labels` carry all three owner labels of this scope: the only objects the agent may change or delete. */
export const ownedBy = (labels: Readonly<Record<string, string>> | undefined, scope: Scope): boolean =>
  labels?.[LABEL_MANAGED_BY] === "meshplane" && labels[LABEL_TENANT] === scope.tenant && labels[LABEL_CLUSTER] === scope.cluster;

/** The label selector of the only objects the agent may ever prune: all three owner labels, for this tenant and cluster. */
export const ownedSelector = (scope: Scope): string => `${LABEL_MANAGED_BY}=meshplane,${LABEL_TENANT}=${scope.tenant},${LABEL_CLUSTER}=${scope.cluster}`;

/**
 * Whether the agent may overwrite an object it found (a mesh's `cacerts`): one it owns, or one it was
 * allowed to adopt (chart value `certificates.adoptExistingCacerts`). An object not there yet is the
 * agent's to create.
 */
export const mayOverwrite = (found: { metadata: { labels?: Record<string, string> } } | undefined, scope: Scope, adoptForeign: boolean): boolean =>
  found === undefined || ownedBy(found.metadata.labels, scope) || adoptForeign;
