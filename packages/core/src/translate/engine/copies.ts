/**
 * A unit as first applied to a copy of a global service, before the policies INVALID on its other
 * copies were kept off it (docs/ambient.md#policies-on-a-global-service), with its key.
 */
export interface FirstUnit<U> {
  key: string;
  unit: U;
}

/** A kept unit: its key and unit, and — for a copy applied again — its first unit. */
interface KeptUnit<U> {
  key: string;
  unit: U;
  first?: FirstUnit<U> | undefined;
}

/** The unit `previous` holds for `key`, final or first; undefined when `forced` or none matches. */
export function keptUnit<U>(previous: KeptUnit<U> | undefined, key: string, forced: boolean): U | undefined {
  if (forced || previous === undefined) return undefined;
  if (previous.key === key) return previous.unit;
  return previous.first?.key === key ? previous.first.unit : undefined;
}

/**
 * A destination's final unit for `key`: `one`, its first unit, when the keys match; else the unit
 * `previous` holds for `key` (unless `forced`) or `apply()`. `first` is `one` when the two differ.
 * When `previous` already holds the final unit, it records `first` and `same` is true: nothing of
 * the destination changed.
 */
export function finalUnit<U>(
  previous: KeptUnit<U> | undefined,
  one: FirstUnit<U>,
  key: string,
  forced: boolean,
  apply: () => U,
): { unit: U; first: FirstUnit<U> | undefined; same: boolean } {
  const first = key === one.key ? undefined : one;
  const unit = first === undefined ? one.unit : (keptUnit(previous, key, forced) ?? apply());
  if (previous === undefined || previous.unit !== unit) return { unit, first, same: false };
  if (first === undefined) delete previous.first;
  else previous.first = first;
  return { unit, first, same: true };
}
