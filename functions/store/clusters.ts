import { randomUUID } from "node:crypto";
import { type DynamoDBDocumentClient, GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { AuthoringGrant } from "@meshplane/core/authoring";
import { canonicalJson } from "@meshplane/core/base";
import { ConflictError, NotFoundError } from "../shared/errors";
import { TOKEN_PREFIX, hashSecret, newSecret } from "../shared/secrets";
import { batchWrite, queryItems, queryKeys } from "./batch";
import { conditionHeld } from "./conditions";
import { clusterPk, keys, tenantPk } from "./keys";
import { type Page, type PageRequest, jsonBytes, readPage } from "./page";
import { type AuthoredRef, authoredRefs } from "./authored";
import type { Change } from "./changes";
import type { StoreDeps } from "./resources";
import { writeWithRevision } from "./revision";
import { SnapshotStore } from "./snapshots";
import { TTL_ATTRIBUTE } from "./table";

export interface Cluster {
  name: string;
  labels?: Record<string, string>;
  /** `pending` until an agent registers with the bootstrap token. */
  state: "pending" | "registered";
  createdAt: string;
  bootstrapExpiresAt?: string;
  lastSeenAt?: string;
  appliedGeneration?: number;
  /** What the cluster may author, when a tenant admin set it (docs/gitops.md#grants); absent: the default. */
  authoring?: AuthoringGrant;
}

export interface Bootstrap {
  token: string;
  expiresAt: string;
}

type Item = Record<string, unknown>;

function bootstrapPut(table: string, tenantId: string, cluster: string, now: Date, ttlMs: number): { bootstrap: Bootstrap; hash: string; put: Item } {
  const token = newSecret(TOKEN_PREFIX.bootstrap);
  const hash = hashSecret(token);
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  return {
    bootstrap: { token, expiresAt },
    hash,
    put: {
      Put: {
        TableName: table,
        Item: { ...keys.bootstrapLookup(hash), tenantId, cluster, expiresAt, [TTL_ATTRIBUTE]: Math.floor((now.getTime() + ttlMs) / 1000) },
      },
    },
  };
}

/** Registered clusters of a tenant and their single-use bootstrap tokens. */
export class ClusterStore {
  constructor(private readonly deps: StoreDeps & { bootstrapTtlMs: number }) {}

  /**
   * Registers a cluster and returns its bootstrap token (shown once). ConflictError if the name is
   * taken. The cluster gets a new incarnation (on its head item), which its snapshots are signed for:
   * nothing signed for an earlier cluster or tenant of the same name verifies for this one.
   */
  async register(
    tenantId: string,
    input: { name: string; labels?: Record<string, string> },
    now: Date,
  ): Promise<{ cluster: Cluster; bootstrap: Bootstrap; revision: number }> {
    const { table } = this.deps;
    const { bootstrap, hash, put } = bootstrapPut(table, tenantId, input.name, now, this.deps.bootstrapTtlMs);
    const cluster: Cluster = {
      name: input.name,
      ...(input.labels && Object.keys(input.labels).length > 0 ? { labels: input.labels } : {}),
      state: "pending",
      createdAt: now.toISOString(),
      bootstrapExpiresAt: bootstrap.expiresAt,
    };
    const revision = await writeWithRevision(this.deps.doc, table, tenantId, () => ({
      items: [
        {
          Put: {
            TableName: table,
            Item: { ...keys.cluster(tenantId, input.name), ...cluster, bootstrapHash: hash },
            ConditionExpression: "attribute_not_exists(PK)",
          },
        },
        put,
        SnapshotStore.created(table, tenantId, input.name, randomUUID()),
      ],
      onConditionFailed: (index) => (index === 0 ? new ConflictError(`cluster ${input.name} already exists`) : undefined),
      changes: [{ type: "cluster", name: input.name }],
    }));
    return { cluster, bootstrap, revision };
  }

  /** Issues a fresh bootstrap token for a cluster, invalidating the previous one. */
  async rotateBootstrap(tenantId: string, name: string, now: Date): Promise<Bootstrap> {
    const { table, doc } = this.deps;
    const current = await this.getItem(tenantId, name);
    const { bootstrap, hash, put } = bootstrapPut(table, tenantId, name, now, this.deps.bootstrapTtlMs);
    await doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: keys.cluster(tenantId, name),
              UpdateExpression: "SET bootstrapHash = :h, bootstrapExpiresAt = :e",
              ConditionExpression: "attribute_exists(PK)",
              ExpressionAttributeValues: { ":h": hash, ":e": bootstrap.expiresAt },
            },
          },
          put as never,
          ...(current.bootstrapHash ? [{ Delete: { TableName: table, Key: keys.bootstrapLookup(current.bootstrapHash as string) } }] : []),
        ],
      }),
    );
    return bootstrap;
  }

  async get(tenantId: string, name: string): Promise<Cluster> {
    return toCluster(await this.getItem(tenantId, name));
  }

  /** Every cluster of the tenant, sorted by name. */
  async list(tenantId: string): Promise<Cluster[]> {
    const items = await queryItems(this.deps.doc, this.deps.table, tenantPk(tenantId), keys.clusterPrefix);
    return items.map(toCluster);
  }

  /** One page of the tenant's clusters, sorted by name, from after the name `request.after`. */
  async page(tenantId: string, request: PageRequest): Promise<Page<Cluster>> {
    return readPage(this.deps.doc, this.deps.table, { pk: tenantPk(tenantId), prefix: keys.clusterPrefix, decode: decodeCluster }, request);
  }

  /**
   * Sets what the cluster `name` may author (docs/gitops.md#grants), or with `grant` undefined clears
   * it back to the default: one revision write, conditional on the cluster existing (NotFoundError),
   * that logs a change of the cluster so translation reads clusters and grants again. Answers the
   * cluster and the revision, undefined when the grant was already that one (nothing written).
   */
  async setAuthoring(tenantId: string, name: string, grant: AuthoringGrant | undefined): Promise<{ cluster: Cluster; revision?: number }> {
    const { doc, table } = this.deps;
    const current = toCluster(await this.getItem(tenantId, name));
    if (canonicalJson(current.authoring ?? null) === canonicalJson(grant ?? null)) return { cluster: current };
    const revision = await writeWithRevision(doc, table, tenantId, () => ({
      items: [
        {
          Update: {
            TableName: table,
            Key: keys.cluster(tenantId, name),
            UpdateExpression: grant ? "SET authoring = :g" : "REMOVE authoring",
            ConditionExpression: "attribute_exists(PK)",
            ...(grant ? { ExpressionAttributeValues: { ":g": grant } } : {}),
          },
        },
      ],
      onConditionFailed: () => new NotFoundError(`cluster ${name} not found`),
      changes: [{ type: "cluster", name }],
    }));
    const { authoring: _previous, ...rest } = current;
    return { cluster: { ...rest, ...(grant ? { authoring: grant } : {}) }, revision };
  }

  /**
   * Deregisters a cluster: its discovered objects and snapshots are removed first, then the resources
   * it authored (docs/gitops.md#names-and-sources) and, with the last of them, the cluster and its
   * bootstrap token, each write with a revision bump, so the next translation forgets it. Interrupted,
   * it is done again in full by the next call: the cluster stays until everything else is gone.
   */
  async deregister(tenantId: string, name: string): Promise<number> {
    const { doc, table } = this.deps;
    const current = await this.getItem(tenantId, name);
    // First shut the agent out: a discovery or status report already under way then fails its
    // final condition (and removes what it wrote) instead of leaving items behind the purge that
    // would resurface if the name is registered again.
    await conditionHeld(
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.snapshotHead(tenantId, name),
          UpdateExpression: "SET deregistering = :t",
          ConditionExpression: "attribute_exists(PK)",
          ExpressionAttributeValues: { ":t": true },
        }),
      ),
    );
    await purgePartition(doc, table, clusterPk(tenantId, name));
    const authored = await authoredRefs(doc, table, tenantId, name);
    const chunks = chunked(authored, AUTHORED_PER_WRITE);
    for (const chunk of chunks.slice(0, -1)) await this.deleteAuthored(tenantId, chunk);
    const own = [
      { Delete: { TableName: table, Key: keys.cluster(tenantId, name), ConditionExpression: "attribute_exists(PK)" } },
      ...(current.bootstrapHash ? [{ Delete: { TableName: table, Key: keys.bootstrapLookup(current.bootstrapHash as string) } }] : []),
    ];
    return this.deleteAuthored(tenantId, chunks.at(-1) ?? [], { name, items: own });
  }

  /**
   * Deletes the authored resources `chunk` (gone meanwhile or not: the agent is shut out, and a
   * delete of what is absent is none) in one revision write that logs each of them — with `cluster`,
   * the cluster's own items too (NotFoundError when it is already gone).
   */
  private deleteAuthored(tenantId: string, chunk: readonly AuthoredRef[], cluster?: { name: string; items: Item[] }): Promise<number> {
    const { doc, table } = this.deps;
    const deletes = chunk.map((r) => ({ Delete: { TableName: table, Key: keys.resource(tenantId, r.kind, r.name) } }));
    const changes = chunk.map((r): Change => ({ type: "resource", kind: r.kind, name: r.name }));
    return writeWithRevision(doc, table, tenantId, () => ({
      items: [...deletes, ...(cluster?.items ?? [])],
      onConditionFailed: () => (cluster ? new NotFoundError(`cluster ${cluster.name} not found`) : undefined),
      changes: cluster ? [...changes, { type: "cluster", name: cluster.name }] : changes,
    }));
  }

  private async getItem(tenantId: string, name: string): Promise<Item> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.cluster(tenantId, name), ConsistentRead: true }));
    if (!out.Item) throw new NotFoundError(`cluster ${name} not found`);
    return out.Item;
  }
}

/** Authored resources deleted per revision write: a transaction holds 100 items, with the bump, the log entry and the cluster's own. */
const AUTHORED_PER_WRITE = 90;

function chunked<T>(list: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(list.length / size) }, (_, i) => list.slice(i * size, (i + 1) * size));
}

async function purgePartition(doc: DynamoDBDocumentClient, table: string, pk: string): Promise<void> {
  const all = await queryKeys(doc, table, pk);
  await batchWrite(
    doc,
    table,
    all.map((Key) => ({ DeleteRequest: { Key } })),
  );
}

function decodeCluster(item: Item) {
  const cluster = toCluster(item);
  return { value: cluster, bytes: jsonBytes(cluster) };
}

function toCluster(item: Item): Cluster {
  return {
    name: item.name as string,
    ...(item.labels ? { labels: item.labels as Record<string, string> } : {}),
    state: item.state as Cluster["state"],
    createdAt: item.createdAt as string,
    ...(item.bootstrapExpiresAt && item.state === "pending" ? { bootstrapExpiresAt: item.bootstrapExpiresAt as string } : {}),
    ...(item.lastSeenAt ? { lastSeenAt: item.lastSeenAt as string } : {}),
    ...(typeof item.appliedGeneration === "number" ? { appliedGeneration: item.appliedGeneration } : {}),
    ...(item.authoring ? { authoring: item.authoring as AuthoringGrant } : {}),
  };
}
