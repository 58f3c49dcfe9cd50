import { BatchGetCommand, BatchWriteCommand, type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import type { Key } from "./keys";

type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Key } };

/** Writes in chunks of 25 (the BatchWriteItem limit), retrying unprocessed items with backoff. */
export async function batchWrite(doc: DynamoDBDocumentClient, table: string, requests: WriteRequest[]): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let pending: WriteRequest[] = requests.slice(i, i + 25);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await doc.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (out.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    }
  }
}

/**
 * The items under `wanted`, in chunks of 100 (the BatchGetItem limit), following unprocessed keys.
 * Missing items are simply absent; the order is DynamoDB's, so callers index by key.
 */
export async function batchGet(
  doc: DynamoDBDocumentClient,
  table: string,
  wanted: readonly Key[],
  consistentRead: boolean,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < wanted.length; i += 100) {
    let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = {
      [table]: { Keys: wanted.slice(i, i + 100), ConsistentRead: consistentRead },
    };
    while (request && Object.keys(request).length > 0) {
      const page = await doc.send(new BatchGetCommand({ RequestItems: request }));
      out.push(...(page.Responses?.[table] ?? []));
      request = page.UnprocessedKeys as typeof request;
    }
  }
  return out;
}

/** How a Query reads. */
export interface QueryOptions {
  /** False: an eventually consistent read, for a list that may lag a write by a moment. Default true (strongly consistent). */
  consistentRead?: boolean;
  /** A ProjectionExpression: only these attributes of each item. Default: whole items. */
  projection?: string;
}

/**
 * The key condition of one partition's items under an SK prefix, with its placeholders `:pk` and
 * `:prefix`. DynamoDB refuses an empty string in a key condition: prefix "" = the whole partition.
 */
export function prefixCondition(pk: string, prefix: string): { expression: string; values: Record<string, string> } {
  return prefix === ""
    ? { expression: "PK = :pk", values: { ":pk": pk } }
    : { expression: "PK = :pk AND begins_with(SK, :prefix)", values: { ":pk": pk, ":prefix": prefix } };
}

type QueryInput = Pick<ConstructorParameters<typeof QueryCommand>[0], "TableName" | "KeyConditionExpression" | "ExpressionAttributeValues">;

/** Every item a Query answers, following pagination. */
async function queryAll(doc: DynamoDBDocumentClient, input: QueryInput, options: QueryOptions = {}): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        ...input,
        ...(options.projection === undefined ? {} : { ProjectionExpression: options.projection }),
        ExclusiveStartKey: start,
        ConsistentRead: options.consistentRead ?? true,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every key of a partition under an SK prefix (absent or "" = the whole partition), strongly read, following pagination. */
export async function queryKeys(doc: DynamoDBDocumentClient, table: string, pk: string, skPrefix = ""): Promise<Key[]> {
  const items = await queryItems(doc, table, pk, skPrefix, { projection: "PK, SK" });
  return items.map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
}

/**
 * Every item of a partition under an SK prefix ("" = the whole partition), in SK order, following
 * pagination: strongly read and whole unless `options` say otherwise.
 */
export function queryItems(
  doc: DynamoDBDocumentClient,
  table: string,
  pk: string,
  skPrefix: string,
  options: QueryOptions = {},
): Promise<Record<string, unknown>[]> {
  const key = prefixCondition(pk, skPrefix);
  return queryAll(doc, { TableName: table, KeyConditionExpression: key.expression, ExpressionAttributeValues: key.values }, options);
}

/** Every item of a partition with an SK from `from` to `to` (inclusive), strongly read, following pagination. */
export function queryItemsBetween(doc: DynamoDBDocumentClient, table: string, pk: string, from: string, to: string): Promise<Record<string, unknown>[]> {
  return queryAll(doc, {
    TableName: table,
    KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to",
    ExpressionAttributeValues: { ":pk": pk, ":from": from, ":to": to },
  });
}
