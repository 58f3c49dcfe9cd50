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

/** Every key of a partition (optionally under an SK prefix), following pagination. */
export async function queryKeys(doc: DynamoDBDocumentClient, table: string, pk: string, skPrefix?: string): Promise<Key[]> {
  const out: Key[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: skPrefix ? "PK = :pk AND begins_with(SK, :p)" : "PK = :pk",
        ExpressionAttributeValues: skPrefix ? { ":pk": pk, ":p": skPrefix } : { ":pk": pk },
        ProjectionExpression: "PK, SK",
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) out.push({ PK: item.PK as string, SK: item.SK as string });
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

/** Every item of a partition under an SK prefix, following pagination. */
export async function queryItems(doc: DynamoDBDocumentClient, table: string, pk: string, skPrefix: string): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :p)",
        ExpressionAttributeValues: { ":pk": pk, ":p": skPrefix },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    out.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}
