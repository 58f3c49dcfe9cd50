import { createHash } from "node:crypto";
import { ValidationError } from "@meshplane/core/base";
import { z } from "zod";
import { MAX_SORT_KEY_BYTES, type Page, type PageRequest, PositionError } from "../store/page";

/**
 * `?limit=` and `?continue=`, as kubectl pages a list. A continue token is base64url of bytes: a
 * format version, a digest of the list it belongs to (tenant, collection and filters) and the
 * position to resume after — a name, or a cluster and a name — as length-prefixed UTF-8, so any key
 * the store can hold (non-ASCII, up to DynamoDB's 1,024-byte sort key) round-trips in a token of
 * bounded size (JSON would escape control characters six-fold). It carries no partition: the tenant
 * always comes from the credential, so a token can only move within the caller's own list, and one
 * made for another list or tenant is refused as the client's mistake.
 */

export const DEFAULT_LIMIT = 500;
export const MAX_LIMIT = 1000;
const VERSION = 2;
const DIGEST_BYTES = 16;
/** Tags of a position: a string, or an object of strings. */
const STRING = 0x73;
const OBJECT = 0x6f;
/**
 * Longer than any token this API issues: the largest position is a cluster and a name of a full sort
 * key each (2 × (1 + 16 + 2 + 1,024) bytes), which with the version and digest is 2,108 bytes, 2,811
 * characters of base64url.
 */
export const MAX_CONTINUE_CHARS = 4096;

/** The list a token belongs to: the tenant (or the operator), the collection, and every filter. */
export type ListScope = readonly unknown[];

const digest = (scope: ListScope): Buffer => createHash("sha256").update(JSON.stringify(scope)).digest().subarray(0, DIGEST_BYTES);

/** A position's bytes: a string, or an object whose values are strings (absent ones left out), keys in order. */
function encodePosition(position: unknown): Buffer {
  if (typeof position === "string") return Buffer.concat([Buffer.of(STRING), Buffer.from(position)]);
  const parts: Buffer[] = [Buffer.of(OBJECT)];
  for (const [key, value] of Object.entries(position as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (value === undefined) continue;
    if (typeof value !== "string") throw new TypeError(`a list position holds strings only (${key})`);
    const k = Buffer.from(key);
    const v = Buffer.from(value);
    const lengths = Buffer.alloc(3);
    lengths.writeUInt8(k.length, 0);
    lengths.writeUInt16BE(v.length, 1);
    parts.push(lengths.subarray(0, 1), k, lengths.subarray(1), v);
  }
  return Buffer.concat(parts);
}

/** The position `encodePosition` wrote, or undefined when the bytes are not one. */
function decodePosition(bytes: Buffer): unknown {
  const text = new TextDecoder("utf-8", { fatal: true });
  if (bytes[0] === STRING) return text.decode(bytes.subarray(1));
  if (bytes[0] !== OBJECT) return undefined;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  let at = 1;
  while (at < bytes.length) {
    const keyLength = bytes.readUInt8(at);
    const key = text.decode(bytes.subarray(at + 1, at + 1 + keyLength));
    const valueLength = bytes.readUInt16BE(at + 1 + keyLength);
    const start = at + 3 + keyLength;
    if (start + valueLength > bytes.length || key in out) return undefined;
    out[key] = text.decode(bytes.subarray(start, start + valueLength));
    at = start + valueLength;
  }
  return { ...out };
}

/** The token that continues `scope` after `position`. */
export function encodeContinue(scope: ListScope, position: unknown): string {
  return Buffer.concat([Buffer.of(VERSION), digest(scope), encodePosition(position)]).toString("base64url");
}

const refused = (message: string) => new ValidationError("invalid continue token", [{ path: "query.continue", message }]);
const AGAIN = "start the list again without continue";

/**
 * The position a `continue` token names in `scope`, checked against `position`; undefined when there
 * is no token (the first page). Throws a ValidationError naming `query.continue` for anything else.
 */
export function decodeContinue<P>(token: string | undefined, scope: ListScope, position: z.ZodType<P>): P | undefined {
  if (token === undefined) return undefined;
  const notOurs = refused(`is not a continue token of this API; ${AGAIN}`);
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw notOurs;
  const bytes = Buffer.from(token, "base64url");
  if (bytes.length <= 1 + DIGEST_BYTES || bytes[0] !== VERSION) throw notOurs;
  if (!bytes.subarray(1, 1 + DIGEST_BYTES).equals(digest(scope))) throw refused(`belongs to another list (another tenant, collection or filter); ${AGAIN}`);
  let raw: unknown;
  try {
    raw = decodePosition(bytes.subarray(1 + DIGEST_BYTES));
  } catch {
    throw notOurs;
  }
  const p = position.safeParse(raw);
  if (!p.success) throw notOurs;
  return p.data;
}

/** A list answer: the page's items and, when there is more, the token of the next page. */
export function listBody<T>(page: Page<T, unknown>, scope: ListScope): { items: T[]; metadata: { continue?: string } } {
  return { items: page.items, metadata: page.next === undefined ? {} : { continue: encodeContinue(scope, page.next) } };
}

/**
 * A position that is a name or an id: any non-empty text a sort key can hold (discovered names come
 * from agents and may be anything DynamoDB stores). A position that cannot follow its list's prefix
 * within the key limit is refused by the store (PositionError).
 */
export const namePosition = z
  .string()
  .min(1)
  .refine((s) => Buffer.byteLength(s) <= MAX_SORT_KEY_BYTES);

/** The query every list takes, parsed. */
export interface PageQuery {
  limit: number;
  continue?: string;
}

/**
 * One page of the list `scope` as the API answers it: decodes the continue token (400 naming
 * `query.continue` when it is not one of this list's), reads the page with `read`, and encodes the
 * token of the next.
 */
export async function listPage<T, P>(query: PageQuery, scope: ListScope, position: z.ZodType<P>, read: (request: PageRequest<P>) => Promise<Page<T, P>>) {
  const after = decodeContinue(query.continue, scope, position);
  try {
    return listBody(await read(after === undefined ? { limit: query.limit } : { limit: query.limit, after }), scope);
  } catch (error) {
    if (error instanceof PositionError) throw refused(`names a position no item of this list can have; ${AGAIN}`);
    throw error;
  }
}
