/**
 * What each cluster may author (docs/gitops.md#grants): a tenant admin sets a cluster's grant or
 * clears it back to the default; the API shows every cluster's effective grant.
 */
import { type AuthoringGrant, DEFAULT_GRANT_KINDS, EVERY_CLUSTER } from "@meshplane/core/authoring";
import { enqueueTranslate } from "../queue/enqueue";
import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { Store } from "../store/index";
import { clusterView } from "./views";

export interface AuthoringDeps {
  store: Store;
  queue: TranslateQueue;
  log: Logger;
}

const KIND_ORDER = ["VirtualMesh", ...DEFAULT_GRANT_KINDS];

/** `grant` in one spelling: kinds in the API's order and clusters sorted, each once. */
function normalized(grant: AuthoringGrant): AuthoringGrant {
  return {
    kinds: KIND_ORDER.filter((k) => grant.kinds.includes(k as AuthoringGrant["kinds"][number])) as AuthoringGrant["kinds"],
    clusters: [...new Set(grant.clusters)].sort(),
  };
}

/**
 * Sets the grant of the cluster `name` (NotFoundError without it), or with `grant` undefined clears it
 * back to the default; logs it and enqueues the translation when it changed. Answers the cluster's view
 * whose `authoring.unregistered` names the clusters of the grant not registered now: allowed, since
 * the grant covers a cluster registered later.
 */
export async function setClusterAuthoring(deps: AuthoringDeps, tenantId: string, name: string, grant: AuthoringGrant | undefined) {
  const given = grant === undefined ? undefined : normalized(grant);
  const { revision } = await deps.store.clusters.setAuthoring(tenantId, name, given);
  if (revision !== undefined) deps.log.info(given ? "cluster authoring grant set" : "cluster authoring grant cleared", { cluster: name, ...given });
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  const view = await clusterView(deps, tenantId, name);
  const named = (given?.clusters ?? []).filter((c) => c !== EVERY_CLUSTER);
  const registered = new Set(named.length > 0 ? (await deps.store.clusters.list(tenantId)).map((c) => c.name) : []);
  const unregistered = named.filter((c) => !registered.has(c));
  return unregistered.length > 0 ? { ...view, authoring: { ...view.authoring, unregistered } } : view;
}
