import type { CertificateDirective } from "@meshplane/core/translate";
import { GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { ConflictError } from "../shared/errors";
import { batchGet, batchWrite, queryItems } from "./batch";
import { conditionFailed, conditionHeld } from "./conditions";
import { clusterOfPk, clusterPk, keys } from "./keys";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** Under DynamoDB's 400 KB item limit with room for keys and attributes. */
export const CHUNK_BYTES = 350_000;
/** How long a superseded generation stays readable for an agent that fetched its head just before. */
const SUPERSEDED_TTL_SECONDS = 3600;

export interface SnapshotHead {
  generation: number;
  hash: string;
  chunks: number;
  signedAt: string;
  /** Expiry of the stored signature (epoch seconds); the re-signer refreshes it before then. */
  exp: number;
}

/** The S#HEAD item: the snapshot head (if any) and the registered agent key (if any). */
export interface ClusterHead {
  /**
   * The cluster's incarnation, a random id written with the head when the cluster is created: every
   * snapshot of the cluster is signed for it, and registration tells it to the agent. Absent for a
   * cluster created before incarnations existed.
   */
  incarnation?: string;
  snapshot?: SnapshotHead;
  /**
   * The certificate directives of the published snapshot, an unsigned copy: the CA signer does not
   * go by it, but by the signed body (docs/shared-trust.md, "Who can sign").
   */
  directives?: CertificateDirective[];
  agentKey?: Record<string, unknown>;
  agentKid?: string;
  discoveryHash?: string;
  appliedGeneration?: number;
  lastSeenAt?: string;
  /** Set when the cluster is being deregistered: its agent is refused and writes nothing more. */
  deregistering?: boolean;
}

type Item = Record<string, unknown>;

/** The condition that the head is of `incarnation` (`:inc`), or has none when it is undefined. */
const incarnationIs = (incarnation: string | undefined): string => (incarnation ? "incarnation = :inc" : "attribute_not_exists(incarnation)");

function toHead(item: Item | undefined): ClusterHead | undefined {
  if (!item) return undefined;
  return {
    ...(typeof item.incarnation === "string" ? { incarnation: item.incarnation } : {}),
    ...(typeof item.generation === "number"
      ? {
          snapshot: {
            generation: item.generation,
            hash: item.hash as string,
            chunks: item.chunks as number,
            signedAt: item.signedAt as string,
            exp: item.exp as number,
          },
        }
      : {}),
    ...(item.agentKey ? { agentKey: item.agentKey as Record<string, unknown>, agentKid: item.agentKid as string } : {}),
    ...(Array.isArray(item.directives) ? { directives: item.directives as CertificateDirective[] } : {}),
    ...(item.discoveryHash ? { discoveryHash: item.discoveryHash as string } : {}),
    ...(typeof item.appliedGeneration === "number" ? { appliedGeneration: item.appliedGeneration } : {}),
    ...(item.lastSeenAt ? { lastSeenAt: item.lastSeenAt as string } : {}),
    ...(item.deregistering === true ? { deregistering: true } : {}),
  };
}

/** Signed per-cluster snapshots: a head item plus the gzipped JWS in chunks per generation. */
export class SnapshotStore {
  constructor(private readonly deps: StoreDeps) {}

  /** The head item; one read, the whole cost of an unchanged poll. */
  async head(tenantId: string, cluster: string, consistent = false): Promise<ClusterHead | undefined> {
    const out = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.snapshotHead(tenantId, cluster), ConsistentRead: consistent }));
    return toHead(out.Item);
  }

  /** Heads of many clusters (missing ones are absent from the map). */
  async heads(tenantId: string, clusters: readonly string[]): Promise<Map<string, ClusterHead>> {
    const items = await batchGet(
      this.deps.doc,
      this.deps.table,
      clusters.map((c) => keys.snapshotHead(tenantId, c)),
      true,
    );
    return new Map(items.map((item) => [clusterOfPk(tenantId, item.PK as string), toHead(item) as ClusterHead]));
  }

  /** The gzipped JWS of the generation `head` names. */
  async body(tenantId: string, cluster: string, head: SnapshotHead): Promise<Buffer> {
    const items = await queryItems(this.deps.doc, this.deps.table, clusterPk(tenantId, cluster), keys.snapshotChunkPrefix(head.generation));
    if (items.length !== head.chunks) throw new Error(`snapshot ${tenantId}/${cluster}@${head.generation}: ${items.length} of ${head.chunks} chunks`);
    return Buffer.concat(items.map((i) => Buffer.from(i.data as Uint8Array)));
  }

  /**
   * Stores a new generation: chunks first, then the head, conditioned on the head still being at
   * `previous` (or absent), so a generation is never skipped or written twice, and — when
   * `next.incarnation` (the one the snapshot was signed for) is given — on the head being of it, so a
   * worker that read a cluster before it was deleted and re-created cannot publish into the new one.
   * A crash between the two leaves orphan chunks that the retry overwrites with the same bytes.
   * The superseded generation's chunks then expire by TTL. ConflictError when the head moved meanwhile.
   */
  async write(
    tenantId: string,
    cluster: string,
    previous: SnapshotHead | undefined,
    next: Omit<SnapshotHead, "chunks"> & { incarnation?: string },
    body: Buffer,
    directives: readonly CertificateDirective[] = [],
  ): Promise<void> {
    const { doc, table } = this.deps;
    const chunks: Buffer[] = [];
    for (let i = 0; i < body.length || i === 0; i += CHUNK_BYTES) chunks.push(body.subarray(i, i + CHUNK_BYTES));
    await batchWrite(
      doc,
      table,
      chunks.map((data, i) => ({ PutRequest: { Item: { ...keys.snapshotChunk(tenantId, cluster, next.generation, i), data } } })),
    );
    try {
      await doc.send(
        new UpdateCommand({
          TableName: table,
          Key: keys.snapshotHead(tenantId, cluster),
          UpdateExpression: "SET generation = :g, #h = :h, chunks = :c, signedAt = :s, #exp = :e, directives = :d",
          ConditionExpression: [
            previous ? "generation = :prev" : "attribute_not_exists(generation)",
            ...(next.incarnation ? [incarnationIs(next.incarnation)] : []),
          ].join(" AND "),
          ExpressionAttributeNames: { "#h": "hash", "#exp": "exp" },
          ExpressionAttributeValues: {
            ":g": next.generation,
            ":h": next.hash,
            ":c": chunks.length,
            ":s": next.signedAt,
            ":e": next.exp,
            ":d": directives,
            ...(previous ? { ":prev": previous.generation } : {}),
            ...(next.incarnation ? { ":inc": next.incarnation } : {}),
          },
        }),
      );
    } catch (error) {
      if (conditionFailed(error)) throw new ConflictError(`snapshot head of ${cluster} moved or is of another incarnation`, { cause: error });
      throw error;
    }
    if (previous) await this.expire(tenantId, cluster, previous);
  }

  private async expire(tenantId: string, cluster: string, head: SnapshotHead): Promise<void> {
    const ttl = Math.floor(Date.now() / 1000) + SUPERSEDED_TTL_SECONDS;
    await Promise.all(
      Array.from({ length: head.chunks }, (_, i) =>
        this.deps.doc
          .send(
            new UpdateCommand({
              TableName: this.deps.table,
              Key: keys.snapshotChunk(tenantId, cluster, head.generation, i),
              UpdateExpression: "SET #ttl = :t",
              ConditionExpression: "attribute_exists(PK)",
              ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
              ExpressionAttributeValues: { ":t": ttl },
            }),
          )
          .catch(() => undefined),
      ),
    );
  }

  /**
   * The head of a cluster being created, with its new incarnation. A put, not a conditional create:
   * whatever a late worker left under the name after the previous incarnation was purged is replaced.
   */
  static created(table: string, tenantId: string, cluster: string, incarnation: string) {
    return { Put: { TableName: table, Item: { ...keys.snapshotHead(tenantId, cluster), incarnation } } };
  }

  /**
   * Binds an agent key to the cluster head (registration), conditioned on the head still being of
   * `incarnation` (the one the registration answers with; undefined: a cluster without one).
   */
  static agentKeyUpdate(table: string, tenantId: string, cluster: string, jwk: Record<string, unknown>, kid: string, incarnation: string | undefined) {
    return {
      Update: {
        TableName: table,
        Key: keys.snapshotHead(tenantId, cluster),
        UpdateExpression: "SET agentKey = :k, agentKid = :kid",
        ConditionExpression: incarnationIs(incarnation),
        ExpressionAttributeValues: { ":k": jwk, ":kid": kid, ...(incarnation ? { ":inc": incarnation } : {}) },
      },
    };
  }

  /** Records an agent JWT id once; false when it was already used (a replay). */
  async useJti(tenantId: string, cluster: string, jti: string, exp: number): Promise<boolean> {
    return conditionHeld(
      this.deps.doc.send(
        new PutCommand({
          TableName: this.deps.table,
          Item: { ...keys.agentJti(tenantId, cluster, jti), [TTL_ATTRIBUTE]: exp + 60 },
          ConditionExpression: "attribute_not_exists(PK)",
        }),
      ),
    );
  }
}
