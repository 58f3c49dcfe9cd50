/**
 * Hour and day objects: one tenant's buckets of one hour (minute resolution) or one day (hourly),
 * gzipped JSON in the packed form (docs/aws.md#metrics).
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { type DatedBucket, type PackedCluster, type StartWindow, pack, unpack } from "./packed";

interface Rollup {
  v: 1;
  tenant: string;
  /** The hour's or the day's start, epoch seconds. */
  start: number;
  clusters: PackedCluster[];
}

/** The object's bytes: equal buckets, equal bytes (gzip without a timestamp). */
export const encodeRollup = (tenant: string, start: number, buckets: readonly DatedBucket[]): Uint8Array =>
  gzipSync(JSON.stringify({ v: 1, tenant, start, clusters: pack(buckets) } satisfies Rollup));

/** The object's buckets: all of them, or those starting in `window` (the others' rows are not built). */
export const decodeRollup = (bytes: Uint8Array, window?: StartWindow): DatedBucket[] =>
  unpack((JSON.parse(gunzipSync(bytes).toString("utf8")) as Rollup).clusters, window);

/** `fn` over `items`, at most `limit` at once, results in order. */
export async function inParallel<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  });
  await Promise.all(lanes);
  return out;
}
