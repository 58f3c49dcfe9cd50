/**
 * Exponential backoff with full jitter: after n consecutive failures wait a random time in
 * [0, min(cap, base·2ⁿ)]. `random` is injectable so tests are exact.
 */
export function backoffMs(failures: number, options: { baseMs: number; capMs: number; random?: () => number }): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.max(0, failures - 1));
  return Math.round((options.random ?? Math.random)() * ceiling);
}

/** The steady poll interval with up to `jitter` × interval added at random. */
export function jitteredMs(intervalMs: number, jitter: number, random: () => number = Math.random): number {
  return Math.round(intervalMs * (1 + jitter * random()));
}
