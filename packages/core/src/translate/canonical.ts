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
   * `sha256:<hex>` of the canonical JSON of `{ certificates, objects }`, fed to the hash piece by
   * piece so a cluster with tens of thousands of objects never needs one giant string. The agent
   * recomputes it from the objects it receives; OutputSink computes the same bytes faster (tested).
   */
  contentHash(objects: readonly unknown[], certificates: readonly unknown[]): string {
    const hash = createHash("sha256");
    hash.update('{"certificates":[');
    certificates.forEach((certificate, i) => hash.update((i === 0 ? "" : ",") + canonicalJson(certificate)));
    hash.update('],"objects":[');
    objects.forEach((object, i) => hash.update((i === 0 ? "" : ",") + canonicalJson(object)));
    hash.update("]}");
    return `sha256:${hash.digest("hex")}`;
  }
}

/** `sha256:<hex>` of `text`. */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
