/**
 * What an agent deletes of the resources its cluster authored (docs/gitops.md#the-agent-protocol): a
 * custom resource deleted in the cluster, at its uid, and on a sync every one the cluster no longer
 * holds. Only ever this cluster's; each change translated once.
 */
import type { CrRef, DeleteResponse } from "@meshplane/core/authoring";
import { authoredName } from "@meshplane/core/base";
import { enqueueTranslate } from "../queue/enqueue";
import type { AuthoringDeps } from "./submit";

/**
 * Deletes each custom resource of `refs` that `cluster` authored, at its uid: a result per ref, in
 * order — `deleted`, `absent` (nothing stored of that name), or `kept` (a newer uid holds it).
 */
export async function deleteResources(deps: AuthoringDeps, tenantId: string, cluster: string, refs: readonly CrRef[]): Promise<DeleteResponse["results"]> {
  const { outcomes, revision } = await deps.store.resources.deleteAuthored(
    tenantId,
    cluster,
    refs.map((r) => ({ kind: r.kind, name: authoredName({ cluster, namespace: r.namespace, name: r.name }), uid: r.uid })),
  );
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  return outcomes.map((outcome) => ({ outcome }));
}

/** The key a sync compares a custom resource by: kind, namespace, name and uid. */
const crKey = (r: Pick<CrRef, "kind" | "namespace" | "name" | "uid">): string => `${r.kind}/${r.namespace}/${r.name}/${r.uid}`;

/**
 * Deletes every resource `cluster` authored that is not among `present`, what the agent holds once
 * its watch has listed everything (matched by kind, namespace, name and uid); answers how many.
 */
export async function syncResources(deps: AuthoringDeps, tenantId: string, cluster: string, present: readonly CrRef[]): Promise<number> {
  const held = new Set(present.map(crKey));
  const gone = (await deps.store.resources.authored(tenantId, cluster)).filter((r) => !held.has(crKey({ kind: r.kind as CrRef["kind"], ...r.source })));
  if (gone.length === 0) return 0;
  const { outcomes, revision } = await deps.store.resources.deleteAuthored(
    tenantId,
    cluster,
    gone.map((r) => ({ kind: r.kind, name: r.name, uid: r.source.uid })),
  );
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  return outcomes.filter((o) => o === "deleted").length;
}
