import type { UserDocument } from "@meshplane/core";
import type { Store } from "../../functions/store/index";
import { trafficPolicy } from "./control-plane";

/** A list answer of the API. */
export interface ListBody<T = { metadata: { name: string } }> {
  items: T[];
  metadata: { continue?: string };
}

/**
 * Stores TrafficPolicies `<prefix>-00000`… (`count` of them, labels from `labelsOf`) through the store,
 * 99 to a transaction (the most one revision write takes): setup for list tests, not what they measure.
 */
export async function seedPolicies(
  store: Store,
  tenant: string,
  prefix: string,
  count: number,
  labelsOf: (i: number) => Record<string, string> | undefined = () => undefined,
): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, "0")}`);
  const now = new Date().toISOString();
  for (let i = 0; i < count; i += 99) {
    const docs = names.slice(i, i + 99).map((name, k) => trafficPolicy(name, {}, labelsOf(i + k)) as UserDocument);
    await store.resources.write(
      tenant,
      docs.map((doc) => ({ doc, mode: "create" as const })),
      now,
    );
  }
  return names;
}

/**
 * Follows `metadata.continue` from `path` (and the token `from`, if given) to the end; returns every
 * page as answered and its size in bytes. Throws on an answer other than 200, or past `maxPages`.
 */
export async function followPages<T = { metadata: { name: string } }>(
  get: (path: string) => Promise<Response>,
  path: string,
  from?: string,
  maxPages = 100,
): Promise<{ bodies: ListBody<T>[]; bytes: number[]; ms: number[] }> {
  const bodies: ListBody<T>[] = [];
  const bytes: number[] = [];
  const ms: number[] = [];
  let next = from;
  do {
    if (bodies.length >= maxPages) throw new Error(`${path}: more than ${maxPages} pages`);
    const started = performance.now();
    const res = await get(next === undefined ? path : `${path}${path.includes("?") ? "&" : "?"}continue=${encodeURIComponent(next)}`);
    const text = await res.text();
    ms.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
    const body = JSON.parse(text) as ListBody<T>;
    bodies.push(body);
    bytes.push(Buffer.byteLength(text));
    next = body.metadata.continue;
  } while (next !== undefined);
  return { bodies, bytes, ms };
}

/** The names of every item of `bodies`, in order. */
export const namesOf = (bodies: ListBody[]): string[] => bodies.flatMap((b) => b.items.map((i) => i.metadata.name));
