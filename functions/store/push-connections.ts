import { GetCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { TooManyRequestsError } from "../shared/errors";
import { queryItems } from "./batch";
import { keys } from "./keys";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** API Gateway closes a WebSocket after 2 hours at most; a connection item outlives that by one, then expires. */
export const PUSH_CONNECTION_TTL_MS = 3 * 60 * 60_000;

/** What a connection was opened with: until when its token holds, and by which agent key. */
export interface PushConnectionGrant {
  /** The opening token's `exp`, seconds since the epoch. */
  expiresAt: number;
  agentKid: string;
}

/** A connection a cluster holds. Items written before grants were recorded have none. */
export interface PushConnection extends Partial<PushConnectionGrant> {
  connectionId: string;
}

const grantOf = (item: Record<string, unknown>): Partial<PushConnectionGrant> => ({
  ...(typeof item.expiresAt === "number" ? { expiresAt: item.expiresAt } : {}),
  ...(typeof item.agentKid === "string" ? { agentKid: item.agentKid } : {}),
});

/**
 * The push connections agents hold on the API Gateway WebSocket API (docs/push.md): per cluster, the
 * connection ids the worker posts a new generation to, and per id the cluster it belongs to (a
 * disconnect names the id alone). Locally the hub holds its sockets in memory instead.
 */
export class PushConnectionStore {
  constructor(private readonly deps: StoreDeps) {}

  /**
   * Records `connectionId` as one of the cluster's; a cluster holding `maxPerCluster` already is
   * refused (TooManyRequestsError). Two agents connecting at the same moment may both pass the count:
   * the bound is there to stop runaway reconnect loops, not to be exact.
   */
  async add(tenantId: string, cluster: string, connectionId: string, now: Date, maxPerCluster: number, grant: PushConnectionGrant): Promise<void> {
    const held = await this.list(tenantId, cluster);
    if (held.length >= maxPerCluster) throw new TooManyRequestsError(`cluster ${cluster} already holds ${held.length} push connections`);
    const ttl = Math.floor((now.getTime() + PUSH_CONNECTION_TTL_MS) / 1000);
    await this.deps.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Put: {
              TableName: this.deps.table,
              Item: { ...keys.pushConnection(tenantId, cluster, connectionId), connectionId, connectedAt: now.toISOString(), ...grant, [TTL_ATTRIBUTE]: ttl },
            },
          },
          { Put: { TableName: this.deps.table, Item: { ...keys.pushConnectionLookup(connectionId), tenantId, cluster, ...grant, [TTL_ATTRIBUTE]: ttl } } },
        ],
      }),
    );
  }

  /** The ids of the connections a cluster holds (expired ones may linger until DynamoDB's TTL removes them). */
  async list(tenantId: string, cluster: string): Promise<string[]> {
    return (await this.held(tenantId, cluster)).map((c) => c.connectionId);
  }

  /** The connections a cluster holds, with what each was opened with. */
  async held(tenantId: string, cluster: string): Promise<PushConnection[]> {
    const pk = keys.pushConnection(tenantId, cluster, "").PK;
    const items = await queryItems(this.deps.doc, this.deps.table, pk, keys.pushConnectionPrefix, {
      consistentRead: false,
      projection: "connectionId, expiresAt, agentKid",
    });
    return items.map((item) => ({ connectionId: item.connectionId as string, ...grantOf(item) }));
  }

  /** The cluster a connection is of, and what it was opened with, if it is known. */
  async owner(connectionId: string): Promise<({ tenantId: string; cluster: string } & Partial<PushConnectionGrant>) | undefined> {
    const got = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.pushConnectionLookup(connectionId) }));
    return got.Item ? { tenantId: got.Item.tenantId as string, cluster: got.Item.cluster as string, ...grantOf(got.Item) } : undefined;
  }

  /** Forgets a connection (closed, or gone when posted to). Idempotent. */
  async remove(tenantId: string, cluster: string, connectionId: string): Promise<void> {
    await this.deps.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: this.deps.table, Key: keys.pushConnection(tenantId, cluster, connectionId) } },
          { Delete: { TableName: this.deps.table, Key: keys.pushConnectionLookup(connectionId) } },
        ],
      }),
    );
  }
}
