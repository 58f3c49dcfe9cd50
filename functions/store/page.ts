import { type DynamoDBDocumentClient, QueryCommand } from "@aws-sdk/lib-dynamodb";
import { prefixCondition } from "./batch";

/**
 * One page of a list. `next` is where the following page starts (pass it back as `after`);
 * undefined means the list has ended. A page may hold fewer than `limit` items — even none — and
 * still have a `next`: see PageBudget.
 */
export interface Page<T, P = string> {
  items: T[];
  next?: P;
}

export interface PageRequest<P = string> {
  /** At most this many items (1 or more). */
  limit: number;
  /** The `next` of the previous page; undefined = from the start. */
  after?: P;
}

/** The most one page's items may take as JSON: a Lambda answer may not exceed 6 MB. */
export const MAX_PAGE_BYTES = 4 * 1024 * 1024;
/** DynamoDB queries one page may make (each reads at most 1 MB): a selective filter over a large tenant returns short pages rather than one slow answer. */
export const MAX_QUERIES_PER_PAGE = 10;

/** DynamoDB's limit on a sort key, in UTF-8 bytes: no stored item's position within a range is longer. */
export const MAX_SORT_KEY_BYTES = 1024;

/** A position to resume after that no key of the range can be at: prefix and position exceed the sort key limit. */
export class PositionError extends Error {}

/** What one page may still take: items, bytes of JSON, DynamoDB queries. Shared by every partition a page reads. */
export class PageBudget {
  private items = 0;
  private bytes = 0;
  private queries = 0;

  constructor(
    readonly limit: number,
    private readonly maxBytes = MAX_PAGE_BYTES,
    private readonly maxQueries = MAX_QUERIES_PER_PAGE,
  ) {}

  /** True when another query may be made. */
  mayQuery(): boolean {
    return this.items < this.limit && this.bytes < this.maxBytes && this.queries < this.maxQueries;
  }

  spendQuery(): void {
    this.queries++;
  }

  /** Takes an item of `bytes` if it fits; the first item of a page always fits, however big. */
  take(bytes: number): boolean {
    if (this.items >= this.limit || (this.items > 0 && this.bytes + bytes > this.maxBytes)) return false;
    this.items++;
    this.bytes += bytes;
    return true;
  }
}

/** An item as a page holds it, with the bytes it adds to the answer. */
export interface Decoded<T> {
  value: T;
  bytes: number;
}

/** A server-side filter: a FilterExpression with its own placeholders (never `:pk` or `:prefix`). */
export interface Filter {
  expression: string;
  names: Record<string, string>;
  values: Record<string, unknown>;
}

export interface RangeQuery<T> {
  pk: string;
  /** The SK prefix of the list ("" = the whole partition); positions are what follows it (a name, an id). */
  prefix: string;
  /** Resume after this position; undefined = from the start of the range. */
  after?: string;
  filter?: Filter;
  /** The item as listed, or undefined when it does not belong in the list (a filter DynamoDB could not apply). */
  decode: (item: Record<string, unknown>) => Decoded<T> | undefined;
}

/** Where a range read stopped: at its end, or after `after` (undefined = before its first item). */
export type RangeResult<T> = { items: T[]; ended: true } | { items: T[]; ended: false; after: string | undefined };

/**
 * Reads one partition's SK range in order, from `after`, for as long as `budget` allows. Each query
 * asks for one item more than a page holds, so a page that ends exactly at the end of the range says
 * so instead of sending the client for an empty page. The partition key is the caller's (built
 * from the authenticated tenant); a position only ever moves within the range.
 */
export async function readRange<T>(doc: DynamoDBDocumentClient, table: string, range: RangeQuery<T>, budget: PageBudget): Promise<RangeResult<T>> {
  const items: T[] = [];
  let last = range.after === undefined ? undefined : range.prefix + range.after;
  if (last !== undefined && Buffer.byteLength(last) > MAX_SORT_KEY_BYTES)
    throw new PositionError(`a position of ${Buffer.byteLength(last)} bytes with its prefix`);
  const stopped = (): RangeResult<T> => ({ items, ended: false, after: last?.slice(range.prefix.length) });
  const key = prefixCondition(range.pk, range.prefix);
  for (;;) {
    if (!budget.mayQuery()) return stopped();
    budget.spendQuery();
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: key.expression,
        ...(range.filter ? { FilterExpression: range.filter.expression, ExpressionAttributeNames: range.filter.names } : {}),
        ExpressionAttributeValues: { ...key.values, ...range.filter?.values },
        ...(last === undefined ? {} : { ExclusiveStartKey: { PK: range.pk, SK: last } }),
        // The whole page's limit, not what is still wanted: with a filter, asking for only what is
        // missing would shrink each query and take many to fill a page. What a query reads past the
        // page is read again by the next one.
        Limit: budget.limit + 1,
        ConsistentRead: true,
      }),
    );
    for (const item of page.Items ?? []) {
      const decoded = range.decode(item);
      if (decoded !== undefined) {
        if (!budget.take(decoded.bytes)) return stopped();
        items.push(decoded.value);
      }
      last = item.SK as string;
    }
    if (!page.LastEvaluatedKey) return { items, ended: true };
    last = page.LastEvaluatedKey.SK as string;
  }
}

/** A page of one partition's range (see readRange). */
export async function readPage<T>(doc: DynamoDBDocumentClient, table: string, range: Omit<RangeQuery<T>, "after">, request: PageRequest): Promise<Page<T>> {
  const out = await readRange(doc, table, { ...range, ...(request.after === undefined ? {} : { after: request.after }) }, new PageBudget(request.limit));
  // A fresh budget always allows the first query, so a range that did not end stopped after an item.
  return out.ended ? { items: out.items } : { items: out.items, next: out.after as string };
}

/** Bytes a small item adds to an answer as JSON. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));
