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
export async function batchGet(doc: DynamoDBDocumentClient, table: string, wanted: readonly Key[], consistentRead: boolean): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < wanted.length; i += 100) {
    let request: Record<string, { Keys: Key[]; ConsistentRead: boolean }> | undefined = { [table]: { Keys: wanted.slice(i, i + 100), ConsistentRead: consistentRead } };
    while (request && Object.keys(request).length > 0) {
      const page = await doc.send(new BatchGetCommand({ RequestItems: request }));
      out.push(...(page.Responses?.[table] ?? []));
      request = page.UnprocessedKeys as typeof request;
    }
  }
  return out;
}

/** Every item a strongly consistent Query answers, following pagination. */
async function queryAll(doc: DynamoDBDocumentClient, input: Omit<ConstructorParameters<typeof QueryCommand>[0], "ExclusiveStartKey" | "ConsistentRead">): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new QueryCommand({ ...input, ExclusiveStartKey: start, ConsistentRead: true }));
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every key of a partition (optionally under an SK prefix), following pagination. */
export async function queryKeys(doc: DynamoDBDocumentClient, table: string, pk: string, skPrefix?: string): Promise<Key[]> {
  const items = await queryAll(doc, {
    TableName: table,
    KeyConditionExpression: skPrefix ? "PK = :pk AND begins_with(SK, :p)" : "PK = :pk",
    ExpressionAttributeValues: skPrefix ? { ":pk": pk, ":p": skPrefix } : { ":pk": pk },
    ProjectionExpression: "PK, SK",
  });
  return items.map((item) => ({ PK: item.PK as string, SK: item.SK as string }));
}

/** Every item of a partition under an SK prefix, following pagination. */
export function queryItems(doc: DynamoDBDocumentClient, table: string, pk: string, skPrefix: string): Promise<Record<string, unknown>[]> {
  return queryAll(doc, { TableName: table, KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)", ExpressionAttributeValues: { ":pk": pk, ":p": skPrefix } });
}

/** Every item of a partition with an SK from `from` to `to` (inclusive), following pagination. */
export function queryItemsBetween(doc: DynamoDBDocumentClient, table: string, pk: string, from: string, to: string): Promise<Record<string, unknown>[]> {
  return queryAll(doc, { TableName: table, KeyConditionExpression: "PK = :pk AND SK BETWEEN :from AND :to", ExpressionAttributeValues: { ":pk": pk, ":from": from, ":to": to } });
}
