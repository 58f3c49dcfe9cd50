/**
 * Code-unit string order. `localeCompare` depends on the ICU data of the runtime, and output order
 * must be byte-stable everywhere, so every sort in translate goes through this.
 */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts a copy of `items` by the string `key` of each. */
export function sortBy<T>(items: Iterable<T>, key: (item: T) => string): T[] {
  return [...items].sort((a, b) => compareStrings(key(a), key(b)));
}

/** Sorted distinct strings. */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareStrings);
}

/** Appends `value` to the list under `key`, creating it; the map keeps insertion order. */
export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** A label set as text for messages: `key=value` pairs, sorted by key, joined with `,`. */
export function labelsText(labels: Record<string, string>): string {
  return Object.entries(labels)
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
}
