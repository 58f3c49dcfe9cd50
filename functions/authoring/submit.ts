/**
 * An agent's submit of the meshplane custom resources it watches (docs/gitops.md#the-agent-protocol):
 * each checked against the API's own schema and its cluster's grant, then every one that passes stored
 * under its authored name with metadata.source, in one revision write, and translated.
 */
import { type AuthoringGrant, MAX_AUTHORED_PER_CLUSTER, type SubmitRequest, type SubmitResult, grantErrors, grantOf } from "@meshplane/core/authoring";
import {
  DOCUMENT_SCHEMAS,
  type FieldError,
  type Mesh,
  type ResourceSource,
  type StoredResource,
  type UserDocument,
  type UserKind,
  authoredName,
  fieldErrors,
} from "@meshplane/core/base";
import { enqueueTranslate } from "../queue/enqueue";
import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { DocumentWrite, Store } from "../store/index";
import { sameOrigin, tooMany } from "../store/authored";
import { MAX_STORED_BODY_BYTES } from "../store/resources";

export interface AuthoringDeps {
  store: Store;
  queue: TranslateQueue;
  now: () => Date;
  log: Logger;
}

type Refusal = Extract<SubmitResult, { outcome: "refused" }>;
type Checked = { write: DocumentWrite } | { refused: Refusal } | { stale: StoredResource };

const refused = (reason: Refusal["reason"], errors: FieldError[]): { refused: Refusal } => ({ refused: { outcome: "refused", reason, errors } });

/**
 * One submitted custom resource as the document to store: valid as the API would take it (field errors
 * under `items[i].document.`), named as its source, within the grant. Server-owned metadata the cluster
 * sent (uid, generation, resourceVersion, times) is ignored, as on the API.
 */
function check(
  item: SubmitRequest["items"][number],
  i: number,
  cluster: string,
  grant: AuthoringGrant,
  meshCluster: (mesh: string) => string | undefined,
): Checked {
  const prefix = `items[${i}].document`;
  const kind = item.document.kind as UserKind;
  const parsed = DOCUMENT_SCHEMAS[kind].safeParse(item.document);
  if (!parsed.success) return refused("Invalid", fieldErrors(parsed.error, prefix));
  const sent = parsed.data as UserDocument;
  if (sent.metadata.name !== item.source.name) {
    return refused("Invalid", [{ path: `${prefix}.metadata.name`, message: `must be the custom resource's name, source.name (${item.source.name})` }]);
  }
  const outside = grantErrors(sent, cluster, grant, meshCluster);
  if (outside.length > 0)
    return refused(
      "OutsideGrant",
      outside.map((e) => ({ path: `${prefix}.${e.path}`, message: e.message })),
    );
  const source: ResourceSource = { cluster, ...item.source };
  const { labels, annotations } = sent.metadata;
  const doc = {
    apiVersion: sent.apiVersion,
    kind: sent.kind,
    metadata: { name: authoredName(source), ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: sent.spec,
  } as UserDocument;
  // One document too big to store is this item's problem, not the whole submit's (a 413).
  const bytes = Buffer.byteLength(JSON.stringify(doc));
  if (bytes > MAX_STORED_BODY_BYTES) {
    return refused("Invalid", [
      { path: prefix, message: `is ${Math.ceil(bytes / 1024)} KiB, more than the ${MAX_STORED_BODY_BYTES / 1024} KiB one resource may take` },
    ]);
  }
  return { write: { doc, mode: "apply", source } };
}

/** Which cluster each mesh of the tenant is in: what a VirtualMesh's grant check needs, read only when one is submitted. */
async function meshClusters(store: Store, tenantId: string, request: SubmitRequest): Promise<(mesh: string) => string | undefined> {
  if (!request.items.some((item) => item.document.kind === "VirtualMesh")) return () => undefined;
  const clusters = (await store.clusters.list(tenantId)).map((c) => c.name);
  const meshes = await store.discovered.list(tenantId, clusters, "Mesh");
  const byName = new Map((meshes as Mesh[]).map((m) => [m.metadata.name, m.spec.cluster]));
  return (mesh) => byName.get(mesh);
}

/**
 * Stores what the agent of `cluster` submitted (docs/gitops.md#the-agent-protocol) and answers a
 * result per item, in order: `stored` with the stored name, generation and action, or `refused` —
 * `Invalid` (meshplane's validation, every field named), `OutsideGrant` (the cluster's grant,
 * docs/gitops.md#grants), `Conflict` (the name is held otherwise, or the cluster holds
 * MAX_AUTHORED_PER_CLUSTER already). Every item stored is written in one revision write and
 * translated once. The cluster is the agent's own, from its credential.
 */
export async function submitResources(deps: AuthoringDeps, tenantId: string, cluster: string, request: SubmitRequest): Promise<SubmitResult[]> {
  const { store } = deps;
  const grant = grantOf(cluster, (await store.clusters.get(tenantId, cluster)).authoring);
  const meshCluster = await meshClusters(store, tenantId, request);
  const seen = new Map<string, number>();
  const checked = request.items.map((item, i): Checked => {
    const id = `${item.document.kind}/${item.source.namespace}/${item.source.name}`;
    const first = seen.get(id);
    if (first !== undefined) return refused("Invalid", [{ path: `items[${i}].source`, message: `${id} also appears in items[${first}]` }]);
    seen.set(id, i);
    return check(item, i, cluster, grant, meshCluster);
  });
  const writes = checked.flatMap((c, i) => ("write" in c ? [{ i, write: c.write }] : []));
  const existing = await store.resources.getMany(
    tenantId,
    writes.map(({ write }) => ({ kind: write.doc.kind, name: write.doc.metadata.name })),
  );
  let room = MAX_AUTHORED_PER_CLUSTER - (existing.some((e) => e === undefined) ? await store.resources.authoredCount(tenantId, cluster) : 0);
  const accepted = writes.filter(({ i, write }, n) => {
    const current = existing[n];
    const source = write.source as ResourceSource;
    if (current !== undefined && !sameOrigin(current.metadata.source, source)) {
      checked[i] = refused("Conflict", [{ path: `items[${i}].source`, message: `${write.doc.kind} ${write.doc.metadata.name} is held by another resource` }]);
      return false;
    }
    // An older generation of the custom resource the store holds, arriving late: it changes nothing.
    const held = current?.metadata.source;
    if (current !== undefined && held?.uid === source.uid && source.generation < held.generation) {
      checked[i] = { stale: current };
      return false;
    }
    if (current === undefined && room-- <= 0) {
      checked[i] = refused("Conflict", [{ path: `items[${i}]`, message: tooMany(cluster) }]);
      return false;
    }
    return true;
  });
  const stored =
    accepted.length === 0
      ? []
      : await store.resources.write(
          tenantId,
          accepted.map((a) => a.write),
          deps.now().toISOString(),
        );
  await enqueueTranslate(deps.queue, deps.log, tenantId, stored.find((r) => r.revision !== undefined)?.revision);
  const byIndex = new Map(accepted.map((a, n) => [a.i, stored[n]]));
  return checked.map((c, i): SubmitResult => {
    const result = byIndex.get(i) ?? ("stale" in c ? { resource: c.stale, action: "unchanged" as const } : undefined);
    if (result === undefined) return (c as { refused: Refusal }).refused;
    const action = result.action === "deleted" ? "configured" : result.action;
    return { outcome: "stored", name: result.resource.metadata.name, generation: result.resource.metadata.generation, action };
  });
}
