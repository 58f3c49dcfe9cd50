/**
 * Reading and writing maps whose keys came from outside (labels, annotations, selectors, headers) so
 * that every key is data: no inherited name (`constructor`, `toString`, `__proto__`) reads as set, and
 * a key named `__proto__` is stored rather than taken for the object's prototype. Parsed client maps
 * have no prototype (`clientMap` in api/common.ts); maps read back from storage or JSON do, so code
 * that looks keys up goes through these.
 */

/** `map[key]` when the map itself holds `key`, never an inherited name (`constructor`, `__proto__`). */
export function ownValue<T>(map: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return map !== undefined && Object.hasOwn(map, key) ? map[key] : undefined;
}

/** `target[key] = value` that also stores a key named `__proto__` as data instead of a new prototype. */
export function setOwn<T>(target: Record<string, T>, key: string, value: NoInfer<T>): void {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
