import { GetCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import { TooManyRequestsError } from "../shared/errors";
import { keys } from "./keys";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** API Gateway closes a WebSocket after 2 hours at most; a connection item outlives that by one, then expires. */
export const PUSH_CONNECTION_TTL_MS = 3 * 60 * 60_000;

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
  async add(tenantId: string, cluster: string, connectionId: string, now: Date, maxPerCluster: number): Promise<void> {
    const held = await this.list(tenantId, cluster);
    if (held.length >= maxPerCluster) throw new TooManyRequestsError(`cluster ${cluster} already holds ${held.length} push connections`);
    const ttl = Math.floor((now.getTime() + PUSH_CONNECTION_TTL_MS) / 1000);
    await this.deps.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.deps.table, Item: { ...keys.pushConnection(tenantId, cluster, connectionId), connectionId, connectedAt: now.toISOString(), [TTL_ATTRIBUTE]: ttl } } },
          { Put: { TableName: this.deps.table, Item: { ...keys.pushConnectionLookup(connectionId), tenantId, cluster, [TTL_ATTRIBUTE]: ttl } } },
        ],
      }),
    );
  }

  /** The ids of the connections a cluster holds (expired ones may linger until DynamoDB's TTL removes them). */
  async list(tenantId: string, cluster: string): Promise<string[]> {
    const pk = keys.pushConnection(tenantId, cluster, "").PK;
    const ids: string[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.deps.doc.send(
        new QueryCommand({
          TableName: this.deps.table,
          KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
          ExpressionAttributeValues: { ":pk": pk, ":p": keys.pushConnectionPrefix },
          ProjectionExpression: "connectionId",
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) ids.push(item.connectionId as string);
      start = page.LastEvaluatedKey;
    } while (start);
    return ids;
  }

  /** The cluster a connection is of, if it is known. */
  async owner(connectionId: string): Promise<{ tenantId: string; cluster: string } | undefined> {
    const got = await this.deps.doc.send(new GetCommand({ TableName: this.deps.table, Key: keys.pushConnectionLookup(connectionId) }));
    return got.Item ? { tenantId: got.Item.tenantId as string, cluster: got.Item.cluster as string } : undefined;
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
