import { ownValue, setOwn } from "../../own-keys";

/** A field two policies set to different values. */
export interface Conflict {
  /** Dotted path of the output field (`retries.attempts`, `connectionPool.tcp.maxConnections`). */
  path: string;
  /** The policy that set it first. */
  owner: string;
}

export type Fields = Record<string, unknown>;

function isPlainObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON-like values; key order does not matter, `undefined` members are absent. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a).filter((k) => a[k] !== undefined);
  if (keys.length !== Object.keys(b).filter((k) => b[k] !== undefined).length) return false;
  return keys.every((k) => deepEqual(a[k], ownValue(b, k)));
}

/**
 * An output object several policies write into, remembering which policy set each leaf (a scalar or
 * a list; objects merge member by member). This is field ownership as in Gloo Mesh `fieldutils`:
 * two policies may fill different members of one field (`retries.attempts` and
 * `retries.perTryTimeout`), and setting a leaf to the value it already has is not a conflict.
 */
export class OwnedFields {
  readonly value: Fields = {};
  private readonly owners = new Map<string, string>();
  /**
   * Every policy whose fields are in the value, in the order they first committed — including one
   * that only repeated values already set: it asked for them too, and must still be named (and
   * keep the object alive) once the first setter is gone.
   */
  readonly parents = new Set<string>();

  /** The leaves of `incoming` already set to a different value. Changes nothing. */
  conflicts(incoming: Fields): Conflict[] {
    const out: Conflict[] = [];
    this.compare(this.value, incoming, "", out);
    return out;
  }

  /** Writes every leaf of `incoming` not yet set, owned by `owner`. Check `conflicts` first. */
  commit(incoming: Fields, owner: string): void {
    if (this.write(this.value, incoming, "", owner)) this.parents.add(owner);
  }

  /** The policy that set the leaf at dotted `path`; undefined when none did. */
  ownerOf(path: string): string | undefined {
    return this.owners.get(path);
  }

  get isEmpty(): boolean {
    return Object.keys(this.value).length === 0;
  }

  private compare(existing: Fields | undefined, incoming: Fields, prefix: string, out: Conflict[]): void {
    for (const [key, next] of Object.entries(incoming)) {
      if (next === undefined) continue;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const current = ownValue(existing, key);
      if (isPlainObject(next) && (current === undefined || isPlainObject(current))) {
        this.compare(current, next, path, out);
      } else if (current !== undefined && !deepEqual(current, next)) {
        out.push({ path, owner: this.owners.get(path) ?? this.ownerBelow(path) });
      }
    }
  }

  /** Owner of some leaf under `path`, for the rare case a list meets an object at the same path. */
  private ownerBelow(path: string): string {
    for (const [leaf, owner] of this.owners) if (leaf.startsWith(`${path}.`)) return owner;
    return "";
  }

  /** Returns true when `incoming` held any leaf (written now or already equal). */
  private write(target: Fields, incoming: Fields, prefix: string, owner: string): boolean {
    let wrote = false;
    for (const [key, next] of Object.entries(incoming)) {
      if (next === undefined) continue;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const current = ownValue(target, key);
      if (isPlainObject(next) && (current === undefined || isPlainObject(current))) {
        let child = current;
        if (child === undefined) setOwn(target, key, (child = {}));
        wrote = this.write(child as Fields, next, path, owner) || wrote || current === undefined;
      } else {
        if (current === undefined) {
          setOwn(target, key, next);
          this.owners.set(path, owner);
        }
        wrote = true;
      }
    }
    return wrote;
  }
}
