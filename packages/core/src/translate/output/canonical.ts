import { createHash } from "node:crypto";
import { compareStrings } from "../compare";
import { setOwn } from "../../own-keys";

/** Keys that lead every object, in this order; the rest follow sorted (docs/style.md#4-byte-stable-self-describing-output). */
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
    if (record[key] !== undefined) setOwn(copy, key, canonicalize(record[key]));
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
   * The snapshot content hash (`sha256:<hex>`), a two-level tree of per-object digests
   * (CONTENT_HASH_SCHEME):
   *
   *     object digests   d = SHA-256(its canonical JSON without metadata.labels),
   *                      l = SHA-256(canonical JSON of its metadata.labels)
   *     chunks           the objects in order, cut after every object whose d starts with a zero
   *                      byte (and after the last): chunk digest = SHA-256(d ‖ l of each object in it)
   *     hash             SHA-256( "meshplane-content/3\n" ‖ canonical JSON of the certificates ‖ "\n" ‖
   *                               the chunk digests in order )
   *
   * Each object enters by its two digests, so translation hashes an object shared by a hundred
   * clusters once, and only the labels (the same for every object of a cluster) differ per cluster.
   * Chunk ends depend on content alone, so a change to a few objects changes only the chunks that
   * hold them, and a translator that keeps the previous chunks re-hashes only those. The agent
   * recomputes the hash from the objects it receives; OutputSink computes the same value from its
   * encodings (tested).
   */
  contentHash(objects: readonly unknown[], certificates: readonly unknown[]): string {
    const hash = createHash("sha256");
    hash.update(`${CONTENT_HASH_SCHEME}\n${canonicalJson(certificates)}\n`);
    const labelDigests = new Map<string, Buffer>();
    let chunk: Buffer[] = [];
    objects.forEach((object, i) => {
      const { metadata, ...rest } = object as { metadata?: Record<string, unknown> };
      const { labels, ...otherMetadata } = metadata ?? {};
      const objectDigest = digest(canonicalJson(metadata === undefined ? rest : { ...rest, metadata: otherMetadata }));
      const labelsJson = canonicalJson(labels ?? null);
      let labelDigest = labelDigests.get(labelsJson);
      if (labelDigest === undefined) labelDigests.set(labelsJson, (labelDigest = digest(labelsJson)));
      chunk.push(objectDigest, labelDigest);
      if (endsChunk(objectDigest) || i === objects.length - 1) {
        hash.update(digest(Buffer.concat(chunk)));
        chunk = [];
      }
    });
    return `sha256:${hash.digest("hex")}`;
  }
}

/** Whether an object whose digest (without labels) is `objectDigest` ends a chunk of the content hash: about one in 256 does. */
export function endsChunk(objectDigest: Buffer): boolean {
  return objectDigest[0] === 0;
}

/** Names the content-hash definition; it leads what is hashed, so another definition can never collide with it. */
export const CONTENT_HASH_SCHEME = "meshplane-content/3";

/** The raw SHA-256 of `text` (or bytes). */
export function digest(text: string | Buffer): Buffer {
  return createHash("sha256").update(text).digest();
}

/** `sha256:<hex>` of `text`. */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
