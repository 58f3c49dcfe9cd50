import { createHash } from "node:crypto";
import { ValidationError } from "@meshplane/core/base";
import { z } from "zod";
import type { Page, PageRequest } from "../store/page";

/**
 * `?limit=` and `?continue=`, as kubectl pages a list. A continue token is base64url JSON
 * `{v, s, p}`: a format version, a digest of the list it belongs to (tenant, collection and
 * filters) and the position to resume after — a name, or a cluster and a name. It carries no
 * partition: the tenant always comes from the credential, so a token can only move within the
 * caller's own list, and one made for another list or tenant is refused as the client's mistake.
 */

export const DEFAULT_LIMIT = 500;
export const MAX_LIMIT = 1000;
/** Longer than any token this API issues (a position is a name or two, at most a few hundred characters). */
export const MAX_CONTINUE_CHARS = 1024;
const VERSION = 1;

/** The list a token belongs to: the tenant (or the operator), the collection, and every filter. */
export type ListScope = readonly unknown[];

const digest = (scope: ListScope): string => createHash("sha256").update(JSON.stringify(scope)).digest("base64url").slice(0, 22);

const tokenSchema = z.strictObject({ v: z.literal(VERSION), s: z.string(), p: z.unknown() });

/** The token that continues `scope` after `position`. */
export function encodeContinue(scope: ListScope, position: unknown): string {
  return Buffer.from(JSON.stringify({ v: VERSION, s: digest(scope), p: position })).toString("base64url");
}

const refused = (message: string) => new ValidationError("invalid continue token", [{ path: "query.continue", message }]);

/**
 * The position a `continue` token names in `scope`, checked against `position`; undefined when there
 * is no token (the first page). Throws a ValidationError naming `query.continue` for anything else.
 */
export function decodeContinue<P>(token: string | undefined, scope: ListScope, position: z.ZodType<P>): P | undefined {
  if (token === undefined) return undefined;
  const again = "start the list again without continue";
  let raw: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(token)) throw new Error("not base64url");
    raw = JSON.parse(Buffer.from(token, "base64url").toString());
  } catch {
    throw refused(`is not a continue token of this API; ${again}`);
  }
  const parsed = tokenSchema.safeParse(raw);
  if (!parsed.success) throw refused(`is not a continue token of this API; ${again}`);
  if (parsed.data.s !== digest(scope)) throw refused(`belongs to another list (another tenant, collection or filter); ${again}`);
  const p = position.safeParse(parsed.data.p);
  if (!p.success) throw refused(`is not a continue token of this API; ${again}`);
  return p.data;
}

/** A list answer: the page's items and, when there is more, the token of the next page. */
export function listBody<T>(page: Page<T, unknown>, scope: ListScope): { items: T[]; metadata: { continue?: string } } {
  return { items: page.items, metadata: page.next === undefined ? {} : { continue: encodeContinue(scope, page.next) } };
}

/**
 * A position that is a name or an id (every list but the discovered ones): printable ASCII, as every
 * name the API stores is, and short enough that prefix and position stay within DynamoDB's 1 KB sort key.
 */
export const namePosition = z.string().regex(/^[\x20-\x7e]{1,512}$/);

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
  return listBody(await read(after === undefined ? { limit: query.limit } : { limit: query.limit, after }), scope);
}
