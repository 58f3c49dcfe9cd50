import { createHash } from "node:crypto";
import { compareStrings } from "./compare";

/** Keys that lead every object, in this order; the rest follow sorted (STYLE.md 4). */
const LEADING_KEYS = ["apiVersion", "kind", "metadata", "spec"] as const;
const LEADING = new Set<string>(LEADING_KEYS);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function orderedKeys(value: Record<string, unknown>): string[] {
  const rest = Object.keys(value)
    .filter((key) => !LEADING.has(key))
    .sort(compareStrings);
  return [...LEADING_KEYS.filter((key) => key in value), ...rest];
}

/**
 * Canonical form and canonical JSON, memoised by object identity for the lifetime of one instance.
 * Generated objects share sub-objects (one spec for every cluster a service is federated to, one
 * labels object per cluster); handling each shared object once is what keeps a 100-cluster tenant
 * fast. One instance lives for one translation, after which nothing it saw is mutated; a
 * module-wide memo would go stale when a caller edits its input between runs.
 */
export class Canonicalizer {
  private readonly canonicalMemo = new WeakMap<object, unknown>();
  private readonly jsonMemo = new WeakMap<object, string>();

  /**
   * A deep copy of `value` with every object's keys in canonical order (apiVersion, kind, metadata,
   * spec, then the rest sorted) and `undefined` members dropped. Array order is kept: where order
   * does not matter the translators sort lists themselves, because only they know (routes must not
   * be sorted). The result is shared and must not be mutated.
   */
  canonicalize<T>(value: T): T {
    if (typeof value !== "object" || value === null) return value;
    const memo = this.canonicalMemo.get(value);
    if (memo !== undefined) return memo as T;
    let out: unknown;
    if (Array.isArray(value)) {
      out = value.map((item: unknown) => this.canonicalize(item));
    } else {
      const record = value as Record<string, unknown>;
      const copy: Record<string, unknown> = {};
      for (const key of orderedKeys(record)) {
        if (record[key] !== undefined) copy[key] = this.canonicalize(record[key]);
      }
      out = copy;
    }
    this.canonicalMemo.set(value, out);
    this.canonicalMemo.set(out as object, out);
    return out as T;
  }

  /** The canonical JSON text of `value`: canonical key order, no whitespace. */
  json(value: unknown): string {
    return this.jsonOfCanonical(this.canonicalize(value));
  }

  private jsonOfCanonical(value: unknown): string {
    if (!isPlainObject(value) && !Array.isArray(value)) return JSON.stringify(value);
    const memo = this.jsonMemo.get(value);
    if (memo !== undefined) return memo;
    let json: string;
    if (Array.isArray(value)) {
      json = `[${value.map((item: unknown) => this.jsonOfCanonical(item)).join(",")}]`;
    } else {
      const parts: string[] = [];
      for (const [key, member] of Object.entries(value)) {
        if (member !== undefined) parts.push(`${JSON.stringify(key)}:${this.jsonOfCanonical(member)}`);
      }
      json = `{${parts.join(",")}}`;
    }
    this.jsonMemo.set(value, json);
    return json;
  }

  /**
   * `sha256:<hex>` of the canonical JSON of `{ certificates, objects }`, fed to the hash piece by
   * piece so a cluster with tens of thousands of objects never needs one giant string. Equal to
   * `sha256(canonicalJson({ objects, certificates }))` — a tested contract, because the agent
   * recomputes it from the objects it receives.
   */
  contentHash(objects: readonly unknown[], certificates: readonly unknown[]): string {
    const hash = createHash("sha256");
    hash.update('{"certificates":[');
    certificates.forEach((certificate, i) => hash.update((i === 0 ? "" : ",") + this.json(certificate)));
    hash.update('],"objects":[');
    objects.forEach((object, i) => hash.update((i === 0 ? "" : ",") + this.json(object)));
    hash.update("]}");
    return `sha256:${hash.digest("hex")}`;
  }
}

/** Canonical deep copy of `value` (see Canonicalizer.canonicalize); nothing is memoised across calls. */
export function canonicalize<T>(value: T): T {
  return new Canonicalizer().canonicalize(value);
}

/** Canonical JSON of `value`: stable key order, no whitespace; the same value gives the same bytes. */
export function canonicalJson(value: unknown): string {
  return new Canonicalizer().json(value);
}

/** `sha256:<hex>` of `text`. */
export function sha256(text: string): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}
