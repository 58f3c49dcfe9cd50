/**
 * What the store keeps of resources authored in clusters (docs/gitops.md#names-and-sources) beside
 * the resources themselves: a copy of metadata.source on each item, for DynamoDB to filter a
 * cluster's resources on, and a count per cluster, so a submit is bounded without listing them.
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { MAX_AUTHORED_PER_CLUSTER } from "@meshplane/core/authoring";
import type { ResourceSource, UserKind } from "@meshplane/core/base";
import { ConflictError, UnauthorizedError } from "../shared/errors";
import { AGENT_ACTIVE } from "./agents";
import { prefixCondition } from "./batch";
import { keys, tenantPk } from "./keys";
import type { Filter } from "./page";

/** The attribute of a resource item that copies its metadata.source. */
export const SOURCE_ATTRIBUTE = "source";

/** The SK prefix of every user resource of every kind (`R#<Kind>#<name>`): a cluster's authored resources are listed across kinds. */
export const RESOURCES_PREFIX = "R#";

/** The resources `cluster` authored, as a filter DynamoDB applies. */
export function authoredFilter(cluster: string): Filter {
  return { expression: "#src.#cl = :authoredBy", names: { "#src": SOURCE_ATTRIBUTE, "#cl": "cluster" }, values: { ":authoredBy": cluster } };
}

/** A stored resource authored in a cluster, as a sync compares it: its kind, stored name and source. */
export interface AuthoredRef {
  kind: UserKind;
  name: string;
  source: ResourceSource;
}

/** Every resource `cluster` authored in the tenant (kind, name and source only), strongly read, in key order. */
export async function authoredRefs(doc: DynamoDBDocumentClient, table: string, tenantId: string, cluster: string): Promise<AuthoredRef[]> {
  const key = prefixCondition(tenantPk(tenantId), RESOURCES_PREFIX);
  const filter = authoredFilter(cluster);
  const out: AuthoredRef[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: key.expression,
        FilterExpression: filter.expression,
        ProjectionExpression: "#kind, #name, #src",
        ExpressionAttributeNames: { ...filter.names, "#kind": "kind", "#name": "name" },
        ExpressionAttributeValues: { ...key.values, ...filter.values },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) out.push({ kind: item.kind as UserKind, name: item.name as string, source: item[SOURCE_ATTRIBUTE] as ResourceSource });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** How many resources `cluster` holds authored, strongly read; undefined when it has never authored one (or was deregistered). */
export async function authoredCount(doc: DynamoDBDocumentClient, table: string, tenantId: string, cluster: string): Promise<number | undefined> {
  const out = await doc.send(new GetCommand({ TableName: table, Key: keys.authoredCount(tenantId, cluster), ConsistentRead: true }));
  return out.Item === undefined ? undefined : Number(out.Item.count);
}

/** A transaction item with the error its failed condition means (undefined: retry). */
export interface GuardedItem {
  item: Record<string, unknown>;
  error: Error | undefined;
}

/**
 * What a write by the agent of `cluster` that creates `created` resources adds to its transaction:
 * the agent still registered and its cluster not being deregistered (a submit under way when it is
 * fails instead of leaving resources behind the purge), and the cluster's count moved, at most
 * MAX_AUTHORED_PER_CLUSTER.
 */
export function authoredWriteItems(table: string, tenantId: string, cluster: string, created: number): GuardedItem[] {
  const head: GuardedItem = {
    item: { ConditionCheck: { TableName: table, Key: keys.snapshotHead(tenantId, cluster), ConditionExpression: AGENT_ACTIVE } },
    error: new UnauthorizedError("the cluster has no registered agent"),
  };
  if (created === 0) return [head];
  return [
    head,
    {
      item: {
        Update: {
          TableName: table,
          Key: keys.authoredCount(tenantId, cluster),
          UpdateExpression: "ADD #count :n",
          ConditionExpression: "attribute_not_exists(#count) OR #count <= :room",
          ExpressionAttributeNames: { "#count": "count" },
          ExpressionAttributeValues: { ":n": created, ":room": MAX_AUTHORED_PER_CLUSTER - created },
        },
      },
      error: new ConflictError(tooMany(cluster)),
    },
  ];
}

/** Why a cluster may author no more: for a refusal. */
export const tooMany = (cluster: string): string =>
  `cluster ${cluster} holds ${MAX_AUTHORED_PER_CLUSTER} authored resources, the most one cluster may (docs/gitops.md#the-agent-protocol); delete some of its custom resources first`;

/**
 * The count of `cluster` moved down by `deleted`, when the count is there (`counted`): a cluster
 * deregistered meanwhile has no count left to move, and the transaction is retried without it.
 */
export function authoredDeleteItems(table: string, tenantId: string, cluster: string, deleted: number, counted: boolean): GuardedItem[] {
  if (!counted || deleted === 0) return [];
  return [
    {
      item: {
        Update: {
          TableName: table,
          Key: keys.authoredCount(tenantId, cluster),
          UpdateExpression: "ADD #count :n",
          ConditionExpression: "attribute_exists(#count)",
          ExpressionAttributeNames: { "#count": "count" },
          ExpressionAttributeValues: { ":n": -deleted },
        },
      },
      error: undefined,
    },
  ];
}

/** Same cluster, namespace and name: a newer uid or generation of the same custom resource replaces what is stored. */
export const sameOrigin = (a: ResourceSource | undefined, b: ResourceSource): boolean =>
  a !== undefined && a.cluster === b.cluster && a.namespace === b.namespace && a.name === b.name;
