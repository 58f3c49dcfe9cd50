import { createHash } from "node:crypto";
import { compareStrings } from "./compare";

/** Keys that lead every object, in this order; the rest follow sorted (STYLE.md 4). */
const LEADING_KEYS = ["apiVersion", "kind", "metadata", "spec"] as const;
const LEADING = new Set<string>(LEADING_KEYS);

function orderedKeys(value: Record<string, unknown>): string[] {
  const keys = Object.keys(value);
  const rest = keys.filter((key) => !LEADING.has(key)).sort(compareStrings);
  return keys.length === rest.length ? rest : [...LEADING_KEYS.filter((key) => key in value), ...rest];
}

/**
 * A deep copy of `value` with every object's keys in canonical order (apiVersion, kind, metadata,
 * spec, then the rest sorted) and `undefined` members dropped. Array order is kept: where order does
 * not matter the translators sort lists themselves, because only they know (routes must not be sorted).
 */
export function canonicalize<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item: unknown) => canonicalize(item)) as T;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of orderedKeys(record)) {
    if (record[key] !== undefined) copy[key] = canonicalize(record[key]);
  }
  return copy as T;
}

/** Canonical JSON of `value`: stable key order, no whitespace; the same value gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonicalize(value));
}

/**
 * Canonical form, canonical JSON and the snapshot content hash, as one object so callers that hash
 * what they received (the agent) and the translator agree on a single definition.
 */
export class Canonicalizer {
  canonicalize<T>(value: T): T {
    return canonicalize(value);
  }

  /** The canonical JSON text of `value`. */
  json(value: unknown): string {
    return canonicalJson(value);
  }

  /**
   * The snapshot content hash (`sha256:<hex>`), a fold of per-object digests (CONTENT_HASH_SCHEME):
   *
   *     SHA-256( "meshplane-content/2\n" ‖ canonical JSON of the certificates ‖ "\n" ‖
   *              for each object, in order: SHA-256(its canonical JSON without metadata.labels)
   *                                         ‖ SHA-256(canonical JSON of its metadata.labels) )
   *
   * Each object enters by its two digests, so translation hashes an object shared by a hundred
   * clusters once, and only the labels (the same for every object of a cluster) differ per cluster;
   * a cluster's hash is then a pass over 64 bytes per object. The agent recomputes it from the
   * objects it receives; OutputSink computes the same value from its encodings (tested).
   */
  contentHash(objects: readonly unknown[], certificates: readonly unknown[]): string {
    const hash = createHash("sha256");
    hash.update(`${CONTENT_HASH_SCHEME}\n${canonicalJson(certificates)}\n`);
    const labelDigests = new Map<string, Buffer>();
    for (const object of objects) {
      const { metadata, ...rest } = object as { metadata?: Record<string, unknown> };
      const { labels, ...otherMetadata } = metadata ?? {};
      hash.update(digest(canonicalJson(metadata === undefined ? rest : { ...rest, metadata: otherMetadata })));
      const labelsJson = canonicalJson(labels ?? null);
      let labelDigest = labelDigests.get(labelsJson);
      if (labelDigest === undefined) labelDigests.set(labelsJson, (labelDigest = digest(labelsJson)));
      hash.update(labelDigest);
    }
    return `sha256:${hash.digest("hex")}`;
  }
}

/** Names the content-hash definition; it leads what is hashed, so another definition can never collide with it. */
export const CONTENT_HASH_SCHEME = "meshplane-content/2";

/** The raw SHA-256 of `text` (or bytes). */
export function digest(text: string | Buffer): Buffer {
  return createHash("sha256").update(text).digest();
}

/** `sha256:<hex>` of `text`. */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
