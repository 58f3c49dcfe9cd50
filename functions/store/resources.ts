import { randomUUID } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import {
  type Requirement,
  type ResourceStatus,
  type StoredResource,
  type UserDocument,
  type UserKind,
  matchesLabels,
  nextStoredVersion,
} from "@meshplane/core/base";
import { ConflictError, NotFoundError, PayloadTooLargeError, PreconditionFailedError } from "../shared/errors";
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
}

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
   * PreconditionFailedError (stale ifMatch).
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
      for (const [i, w] of writes.entries()) {
        const current = existing[i];
        checkPreconditions(w, current);
        const next = nextStoredVersion(current, w.doc, { now, resourceVersion: String(rev), uid: randomUUID() });
        if (!next) {
          results.push({ resource: current as StoredResource, action: "unchanged" });
          continue;
        }
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

  /** Deletes a resource (optionally only at `ifMatch`); returns the deleted resource and the new revision. */
  async delete(tenantId: string, kind: UserKind, name: string, ifMatch?: string): Promise<WriteResult> {
    let deleted: StoredResource | undefined;
    const revision = await writeWithRevision(this.deps.doc, this.deps.table, tenantId, async () => {
      deleted = await this.get(tenantId, kind, name);
      if (ifMatch !== undefined && ifMatch !== deleted.metadata.resourceVersion) {
        throw new PreconditionFailedError(`${kind} ${name} was changed by someone else; read it again`);
      }
      return {
        items: [
          {
            Delete: {
              TableName: this.deps.table,
              Key: keys.resource(tenantId, kind, name),
              ConditionExpression: "resourceVersion = :rv",
              ExpressionAttributeValues: { ":rv": deleted.metadata.resourceVersion },
            },
          },
        ],
        onConditionFailed: () =>
          ifMatch !== undefined ? new PreconditionFailedError(`${kind} ${name} was changed by someone else; read it again`) : undefined,
        changes: [{ type: "resource", kind, name }],
      };
    });
    return { resource: deleted as StoredResource, action: "deleted", revision };
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

function checkPreconditions(w: DocumentWrite, current: StoredResource | undefined): void {
  const what = `${w.doc.kind} ${w.doc.metadata.name}`;
  if (w.mode === "create" && current) throw new ConflictError(`${what} already exists`);
  if (w.mode === "replace" && !current) throw new NotFoundError(`${what} not found`);
  if (w.ifMatch !== undefined && w.ifMatch !== "" && current?.metadata.resourceVersion !== w.ifMatch) {
    throw new PreconditionFailedError(`${what} was changed by someone else; read it again`);
  }
}
