import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import {
  type Requirement,
  type ResourceSource,
  type ResourceStatus,
  type StoredResource,
  type UserDocument,
  type UserKind,
  matchesLabels,
  nextStoredVersion,
} from "@meshplane/core/base";
import { ConflictError, NotFoundError, PayloadTooLargeError, PreconditionFailedError } from "../shared/errors";
import {
  type AuthoredRef,
  RESOURCES_PREFIX,
  SOURCE_ATTRIBUTE,
  authoredCount,
  authoredDeleteItems,
  authoredFilter,
  authoredRefs,
  authoredWriteItems,
  sameOrigin,
} from "./authored";
import { batchGet, queryItems } from "./batch";
import { conditionHeld } from "./conditions";
import { keys, tenantPk } from "./keys";
import { LABELS_ATTRIBUTE, labelFilter } from "./label-filter";
import { type Decoded, type Page, type PageRequest, readPage } from "./page";
import type { Change } from "./changes";
import { writeWithRevision } from "./revision";

export interface StoreDeps {
  doc: DynamoDBDocumentClient;
  table: string;
}

export type WriteAction = "created" | "configured" | "unchanged" | "deleted";

export interface WriteResult {
  resource: StoredResource;
  action: WriteAction;
  /** The tenant revision the change produced; undefined when nothing changed. */
  revision?: number;
}

interface ResourceItem {
  body: string;
  /** The status as JSON, gzipped: a policy over 10,000 destinations has a status of about 1 MB of
   * JSON, more than a DynamoDB item holds, and it compresses well (its entries repeat). */
  status: Uint8Array;
  resourceVersion: string;
  /** A copy of metadata.labels for DynamoDB to filter lists on (absent on items written before it, or with very big labels). */
  labels?: Record<string, string>;
}

/** The status as stored: gzipped JSON (see ResourceItem). */
export function encodeStatus(status: ResourceStatus): Uint8Array {
  return gzipSync(JSON.stringify(status));
}

/** The status's JSON. */
function statusJson(value: unknown): Buffer {
  // Items written before statuses were compressed hold plain JSON text.
  if (typeof value === "string") return Buffer.from(value);
  return gunzipSync(value as Uint8Array);
}

/** The resource of an item, with the bytes of its JSON (body and status). */
function decodeResource(item: Record<string, unknown>): Decoded<StoredResource> {
  const body = item.body as string;
  const status = statusJson(item.status);
  const parsed = JSON.parse(body) as Omit<StoredResource, "status">;
  return { value: { ...parsed, status: JSON.parse(status.toString()) as ResourceStatus }, bytes: Buffer.byteLength(body) + status.length };
}

function toResource(item: Record<string, unknown>): StoredResource {
  return decodeResource(item).value;
}

/** A listed resource, or undefined when it does not match `selector`. */
function decodeListed(item: Record<string, unknown>, selector: readonly Requirement[]): Decoded<StoredResource> | undefined {
  const decoded = decodeResource(item);
  return matchesLabels(selector, decoded.value.metadata.labels) ? decoded : undefined;
}

/**
 * Labels bigger than this are not copied into the item's `labels` map: the item must stay under
 * DynamoDB's 400 KB beside a body of up to MAX_STORED_BODY_BYTES. Such an item is listed by the
 * in-memory check, as one written before the map existed.
 */
const MAX_LABELS_ATTRIBUTE_BYTES = 8 * 1024;

export type WriteMode = "create" | "replace" | "apply";

export interface DocumentWrite {
  doc: UserDocument;
  mode: WriteMode;
  /**
   * Required resourceVersion (If-Match or metadata.resourceVersion); replace/apply only. Empty means
   * no precondition, as in Kubernetes: templates and `kubectl get -o yaml` edits carry `""`.
   */
  ifMatch?: string;
  /**
   * Set when the document is a custom resource an agent submitted (docs/gitops.md#names-and-sources):
   * stored as metadata.source. An existing resource of the name is replaced only when it came from the
   * same custom resource's cluster, namespace and name (ConflictError otherwise).
   */
  source?: ResourceSource;
}

/** What an agent's delete of one custom resource did: deleted, nothing stored, or kept (another uid holds the name). */
export type AuthoredDeletion = "deleted" | "absent" | "kept";

/** User resources (VirtualMesh, TrafficPolicy, AccessPolicy) of one tenant. */
export class ResourceStore {
  constructor(private readonly deps: StoreDeps) {}

  /** Returns the resource or throws NotFoundError. */
  async get(tenantId: string, kind: UserKind, name: string): Promise<StoredResource> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.resource(tenantId, kind, name), ConsistentRead: true }));
    if (!out.Item) throw new NotFoundError(`${kind} ${name} not found`);
    return toResource(out.Item);
  }

  /**
   * One page of the resources of a kind, sorted by name, from after the name `request.after`.
   * DynamoDB applies the selector where it can (labelFilter); every item is checked again here.
   */
  async page(tenantId: string, kind: UserKind, selector: readonly Requirement[], request: PageRequest): Promise<Page<StoredResource>> {
    const filter = labelFilter(selector);
    return readPage(
      this.deps.doc,
      this.deps.table,
      { pk: tenantPk(tenantId), prefix: keys.resourcePrefix(kind), ...(filter ? { filter } : {}), decode: (item) => decodeListed(item, selector) },
      request,
    );
  }

  /** All resources of a kind, sorted by name, optionally filtered by a parsed label selector. */
  async list(tenantId: string, kind: UserKind, selector: readonly Requirement[] = []): Promise<StoredResource[]> {
    const items = await queryItems(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.resourcePrefix(kind));
    return items.map(toResource).filter((resource) => matchesLabels(selector, resource.metadata.labels));
  }

  /**
   * Writes several documents atomically with one revision bump: either every document is stored or
   * none is. Documents identical to what is stored are reported `unchanged` and not written.
   * Errors: ConflictError (create of an existing name), NotFoundError (replace of a missing one),
   * PreconditionFailedError (stale ifMatch). Writes with a `source` also hold only while that cluster's
   * agent is registered (UnauthorizedError) and move its count of authored resources, at most
   * MAX_AUTHORED_PER_CLUSTER (ConflictError).
   */
  async write(tenantId: string, writes: DocumentWrite[], now: string): Promise<WriteResult[]> {
    let results: WriteResult[] = [];
    const revision = await writeWithRevision(this.deps.doc, this.deps.table, tenantId, async (rev) => {
      const existing = await this.getMany(
        tenantId,
        writes.map((w) => ({ kind: w.doc.kind, name: w.doc.metadata.name })),
      );
      results = [];
      const items = [];
      const conditionErrors: (Error | undefined)[] = [];
      /** Per authoring cluster, how many of its resources this write creates. */
      const created = new Map<string, number>();
      for (const [i, w] of writes.entries()) {
        const current = existing[i];
        checkPreconditions(w, current);
        const next = nextStoredVersion(current, w.doc, { now, resourceVersion: String(rev), uid: randomUUID() }, w.source);
        if (!next) {
          results.push({ resource: current as StoredResource, action: "unchanged" });
          continue;
        }
        if (w.source) created.set(w.source.cluster, (created.get(w.source.cluster) ?? 0) + (current ? 0 : 1));
        results.push({ resource: next, action: current ? "configured" : "created" });
        items.push(this.putItem(tenantId, next, current?.metadata.resourceVersion));
        conditionErrors.push(
          w.mode === "create"
            ? new ConflictError(`${w.doc.kind} ${w.doc.metadata.name} already exists`)
            : w.ifMatch !== undefined
              ? new PreconditionFailedError(`${w.doc.kind} ${w.doc.metadata.name} was changed by someone else; read it again`)
              : undefined,
        );
      }
      if (items.length === 0) throw new NoChange();
      for (const guarded of [...created].flatMap(([cluster, n]) => authoredWriteItems(this.deps.table, tenantId, cluster, n))) {
        items.push(guarded.item as never);
        conditionErrors.push(guarded.error);
      }
      const changes = results
        .filter((r) => r.action !== "unchanged")
        .map((r): Change => ({ type: "resource", kind: r.resource.kind as UserKind, name: r.resource.metadata.name }));
      return { items, onConditionFailed: (index) => conditionErrors[index], changes };
    }).catch((error: unknown) => {
      if (error instanceof NoChange) return undefined;
      throw error;
    });
    return results.map((r) => (r.action === "unchanged" || revision === undefined ? r : { ...r, revision }));
  }

  /**
   * Deletes a resource (optionally only at `ifMatch`); returns the deleted resource and the new
   * revision. One authored in a cluster moves that cluster's count down with it.
   */
  async delete(tenantId: string, kind: UserKind, name: string, ifMatch?: string): Promise<WriteResult> {
    let deleted: StoredResource | undefined;
    const revision = await writeWithRevision(this.deps.doc, this.deps.table, tenantId, async () => {
      deleted = await this.get(tenantId, kind, name);
      if (ifMatch !== undefined && ifMatch !== deleted.metadata.resourceVersion) {
        throw new PreconditionFailedError(`${kind} ${name} was changed by someone else; read it again`);
      }
      const source = deleted.metadata.source;
      const counted = source !== undefined && (await authoredCount(this.deps.doc, this.deps.table, tenantId, source.cluster)) !== undefined;
      return {
        items: [
          this.deleteItem(tenantId, deleted),
          ...(source ? authoredDeleteItems(this.deps.table, tenantId, source.cluster, 1, counted).map((g) => g.item as never) : []),
        ],
        // The count gone with its cluster meanwhile (index 1): retry without it.
        onConditionFailed: (index) =>
          index === 0 && ifMatch !== undefined ? new PreconditionFailedError(`${kind} ${name} was changed by someone else; read it again`) : undefined,
        changes: [{ type: "resource", kind, name }],
      };
    });
    return { resource: deleted as StoredResource, action: "deleted", revision };
  }

  /**
   * Deletes what `cluster` authored under each of `refs` (docs/gitops.md#the-agent-protocol), only
   * where the stored resource came from that custom resource's uid: a resource submitted again under a
   * new uid is `kept`, a name holding nothing `absent`. One revision write per AUTHORED_PER_WRITE refs,
   * moving the cluster's count; returns an outcome per ref, in order, and the last revision (undefined
   * when nothing was deleted).
   */
  async deleteAuthored(
    tenantId: string,
    cluster: string,
    refs: readonly { kind: UserKind; name: string; uid: string }[],
  ): Promise<{ outcomes: AuthoredDeletion[]; revision?: number }> {
    const outcomes: AuthoredDeletion[] = [];
    let revision: number | undefined;
    for (let start = 0; start < refs.length; start += AUTHORED_PER_WRITE) {
      const chunk = refs.slice(start, start + AUTHORED_PER_WRITE);
      let decided: AuthoredDeletion[] = [];
      const written = await writeWithRevision(this.deps.doc, this.deps.table, tenantId, async () => {
        const current = await this.getMany(tenantId, chunk);
        decided = chunk.map((ref, i) => {
          const stored = current[i];
          if (stored === undefined) return "absent";
          return stored.metadata.source?.cluster === cluster && stored.metadata.source.uid === ref.uid ? "deleted" : "kept";
        });
        const gone = current.filter((r, i): r is StoredResource => r !== undefined && decided[i] === "deleted");
        if (gone.length === 0) throw new NoChange();
        const counted = (await authoredCount(this.deps.doc, this.deps.table, tenantId, cluster)) !== undefined;
        return {
          items: [
            ...gone.map((r) => this.deleteItem(tenantId, r)),
            ...authoredDeleteItems(this.deps.table, tenantId, cluster, gone.length, counted).map((g) => g.item as never),
          ],
          // A resource changed meanwhile, or the count went with its cluster: read again and retry.
          onConditionFailed: () => undefined,
          changes: gone.map((r): Change => ({ type: "resource", kind: r.kind as UserKind, name: r.metadata.name })),
        };
      }).catch((error: unknown) => {
        if (error instanceof NoChange) return undefined;
        throw error;
      });
      outcomes.push(...decided);
      revision = written ?? revision;
    }
    return { outcomes, ...(revision !== undefined ? { revision } : {}) };
  }

  /** Every resource `cluster` authored (kind, stored name, source), for a sync to compare with what the cluster holds. */
  authored(tenantId: string, cluster: string): Promise<AuthoredRef[]> {
    return authoredRefs(this.deps.doc, this.deps.table, tenantId, cluster);
  }

  /** How many resources `cluster` holds authored, as counted with each create and delete. */
  async authoredCount(tenantId: string, cluster: string): Promise<number> {
    return (await authoredCount(this.deps.doc, this.deps.table, tenantId, cluster)) ?? 0;
  }

  /**
   * One page of the resources `cluster` authored, every kind, in key order (`<Kind>#<name>` positions),
   * DynamoDB filtering on the item's copy of metadata.source.
   */
  async authoredPage(tenantId: string, cluster: string, request: PageRequest): Promise<Page<StoredResource>> {
    return readPage(
      this.deps.doc,
      this.deps.table,
      { pk: tenantPk(tenantId), prefix: RESOURCES_PREFIX, filter: authoredFilter(cluster), decode: decodeResource },
      request,
    );
  }

  /**
   * Writes the status the translator computed, only if the resource is still at `generation` (a
   * newer spec will get its own translation). Returns false when the resource moved or is gone.
   */
  async writeStatus(tenantId: string, kind: UserKind, name: string, generation: number, status: ResourceStatus): Promise<boolean> {
    return conditionHeld(
      this.deps.doc.send(
        new UpdateCommand({
          TableName: this.deps.table,
          Key: keys.resource(tenantId, kind, name),
          UpdateExpression: "SET #status = :s",
          ConditionExpression: "generation = :g",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":s": encodeStatus(status), ":g": generation },
        }),
      ),
    );
  }

  /** The stored resources of these kinds and names, strongly read, in order (undefined: none). */
  async getMany(tenantId: string, refs: readonly { kind: UserKind; name: string }[]): Promise<(StoredResource | undefined)[]> {
    const wanted = refs.map((r) => keys.resource(tenantId, r.kind, r.name));
    const found = new Map((await batchGet(this.deps.doc, this.deps.table, wanted, true)).map((item) => [item.SK as string, toResource(item)]));
    return wanted.map((k) => found.get(k.SK));
  }

  /** The transaction item that deletes `resource` as it was read. */
  private deleteItem(tenantId: string, resource: StoredResource) {
    return {
      Delete: {
        TableName: this.deps.table,
        Key: keys.resource(tenantId, resource.kind, resource.metadata.name),
        ConditionExpression: "resourceVersion = :rv",
        ExpressionAttributeValues: { ":rv": resource.metadata.resourceVersion },
      },
    };
  }

  private putItem(tenantId: string, next: StoredResource, currentVersion: string | undefined) {
    const body = JSON.stringify({ apiVersion: next.apiVersion, kind: next.kind, metadata: next.metadata, spec: next.spec });
    if (Buffer.byteLength(body) > MAX_STORED_BODY_BYTES) {
      const { path, bytes } = largestField({ metadata: next.metadata, spec: next.spec });
      throw new PayloadTooLargeError(
        `${next.kind} ${next.metadata.name} is ${kb(Buffer.byteLength(body))} as stored, more than the ${kb(MAX_STORED_BODY_BYTES)} one resource may take; ${path} alone is ${kb(bytes)}: split it into several resources`,
      );
    }
    const labels = next.metadata.labels ?? {};
    const item: ResourceItem & Record<string, unknown> = {
      ...keys.resource(tenantId, next.kind, next.metadata.name),
      kind: next.kind,
      name: next.metadata.name,
      generation: next.metadata.generation,
      resourceVersion: next.metadata.resourceVersion,
      body,
      status: encodeStatus(next.status),
      ...(Buffer.byteLength(JSON.stringify(labels)) <= MAX_LABELS_ATTRIBUTE_BYTES ? { [LABELS_ATTRIBUTE]: labels } : {}),
      ...(next.metadata.source ? { [SOURCE_ATTRIBUTE]: next.metadata.source } : {}),
    };
    return {
      Put: {
        TableName: this.deps.table,
        Item: item,
        ...(currentVersion === undefined
          ? { ConditionExpression: "attribute_not_exists(PK)" }
          : { ConditionExpression: "resourceVersion = :rv", ExpressionAttributeValues: { ":rv": currentVersion } }),
      },
    };
  }
}

/**
 * The most a resource's stored JSON may take: a DynamoDB item holds 400 KB, and the item also carries
 * the status (gzipped) and keys. Bigger bodies fit the API's 1 MiB limit but not the store, so they
 * are refused as the client's mistake (413) rather than failing in DynamoDB (500).
 */
export const MAX_STORED_BODY_BYTES = 300 * 1024;

const kb = (bytes: number): string => `${Math.ceil(bytes / 1024)} KiB`;

/** The field to blame for a big value: descend while one member holds most of its parent's size. */
function largestField(value: Record<string, unknown>, path = ""): { path: string; bytes: number } {
  const sizes = Object.entries(value).map(([key, v]) => ({ key, v, bytes: Buffer.byteLength(JSON.stringify(v) ?? "") }));
  const total = sizes.reduce((sum, x) => sum + x.bytes, 0);
  const top = sizes.sort((a, b) => b.bytes - a.bytes)[0];
  if (top === undefined) return { path: path || "(document)", bytes: total };
  const here = Array.isArray(value) ? `${path}[${top.key}]` : path === "" ? top.key : `${path}.${top.key}`;
  if (top.v !== null && typeof top.v === "object" && top.bytes > total / 2) {
    const inner = largestField(top.v as Record<string, unknown>, here);
    if (inner.bytes > top.bytes / 2) return inner;
  }
  return { path: here, bytes: top.bytes };
}

/** Thrown inside a revision write when every document is unchanged: nothing to commit. */
class NoChange extends Error {}

/** Authored resources deleted per revision write: a transaction holds 100 items, with the bump, the log entry and the count. */
const AUTHORED_PER_WRITE = 90;

function checkPreconditions(w: DocumentWrite, current: StoredResource | undefined): void {
  const what = `${w.doc.kind} ${w.doc.metadata.name}`;
  if (w.mode === "create" && current) throw new ConflictError(`${what} already exists`);
  if (w.mode === "replace" && !current) throw new NotFoundError(`${what} not found`);
  if (w.source && current && !sameOrigin(current.metadata.source, w.source)) {
    throw new ConflictError(
      `${what} is held by another resource than the custom resource ${w.source.namespace}/${w.source.name} of cluster ${w.source.cluster}`,
    );
  }
  if (w.ifMatch !== undefined && w.ifMatch !== "" && current?.metadata.resourceVersion !== w.ifMatch) {
    throw new PreconditionFailedError(`${what} was changed by someone else; read it again`);
  }
}
