/**
 * Writes of user resources (docs/resources.md): each stored in one change of the tenant's revision,
 * then translated (a job enqueued, functions/queue/enqueue.ts). A root-changing edit of a
 * VirtualMesh is the admin's (functions/trust/root-change.ts).
 */
import type { StoredResource, UserDocument, UserKind } from "@meshplane/core/base";
import { enqueueTranslate } from "../queue/enqueue";
import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { Principal, Store, WriteResult } from "../store/index";
import { guardRootChange } from "../trust/root-change";
import { validateDocuments } from "./documents";

export interface IntentDeps {
  store: Store;
  queue: TranslateQueue;
  now: () => Date;
  log: Logger;
}

/** Creates `doc`; ConflictError (409) when it exists. Returns it as stored. */
export async function createResource(deps: IntentDeps, tenantId: string, doc: UserDocument): Promise<StoredResource> {
  const [result] = await deps.store.resources.write(tenantId, [{ doc, mode: "create" }], deps.now().toISOString());
  await enqueueTranslate(deps.queue, deps.log, tenantId, result?.revision);
  return (result as WriteResult).resource;
}

/**
 * Replaces the resource `doc` names with it; conditional on `ifMatch`, else on the document's own
 * resourceVersion, when either is given (412 when stale). NotFoundError (404) when it does not
 * exist. Returns it as stored.
 */
export async function replaceResource(
  deps: IntentDeps,
  tenantId: string,
  principal: Principal,
  doc: UserDocument,
  ifMatch: string | undefined,
): Promise<StoredResource> {
  const version = ifMatch ?? doc.metadata.resourceVersion;
  const write = await guardRootChange(deps, tenantId, principal, { doc, mode: "replace", ...(version !== undefined ? { ifMatch: version } : {}) });
  const [result] = await deps.store.resources.write(tenantId, [write], deps.now().toISOString());
  await enqueueTranslate(deps.queue, deps.log, tenantId, result?.revision);
  return (result as WriteResult).resource;
}

/** Deletes the resource, conditional on `ifMatch` when given (412 when stale); returns it as it was. NotFoundError (404) when absent. */
export async function deleteResource(deps: IntentDeps, tenantId: string, kind: UserKind, name: string, ifMatch: string | undefined): Promise<StoredResource> {
  const result = await deps.store.resources.delete(tenantId, kind, name, ifMatch);
  await enqueueTranslate(deps.queue, deps.log, tenantId, result.revision);
  return result.resource;
}

/**
 * `POST /v1/apply`: creates or replaces every document in one atomic change — all valid
 * (validateDocuments) or nothing stored; a stale metadata.resourceVersion fails it all (412). A
 * result per document, in order.
 */
export async function applyDocuments(deps: IntentDeps, tenantId: string, principal: Principal, documents: unknown[]): Promise<WriteResult[]> {
  const writes = await Promise.all(validateDocuments(documents).map((w) => guardRootChange(deps, tenantId, principal, w)));
  const results = await deps.store.resources.write(tenantId, writes, deps.now().toISOString());
  await enqueueTranslate(deps.queue, deps.log, tenantId, results.find((r) => r.revision !== undefined)?.revision);
  return results;
}
