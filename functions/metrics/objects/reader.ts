/**
 * MetricsReader over the bucket (functions/metrics/stored.ts): minute buckets from hour objects and,
 * for hours not compacted yet, from the segments; hourly buckets from day objects once an hour's
 * minutes are no longer kept (docs/observability.md#where-it-is-kept).
 */
import type { MetricsReader, StoredBucket } from "../stored";
import type { ObjectBucket } from "./bucket";
import { HOUR_S, RETENTION_DAYS, dayObjectKey, dayStart, hourObjectKey, hourStart, segmentPrefix, shardOf } from "./keys";
import { type DatedBucket, type StartWindow, latestPerBucket } from "./packed";
import { decodeRollup, inParallel } from "./rollups";
import { tenantBlock } from "./segments";

/** Hours back from the current one whose segments are read when their hour object is missing (compaction runs at 20 past). */
const UNCOMPACTED_HOURS = 2;
/** Objects fetched at once by one read. */
const PARALLEL_GETS = 16;

export class S3MetricsReader implements MetricsReader {
  constructor(private readonly deps: { bucket: ObjectBucket; shards: number; now: () => Date }) {}

  /**
   * Contract: functions/metrics/stored.ts. Hour objects whose retention has run out are not asked for;
   * of each object, only the buckets starting in the window are built.
   */
  async buckets(tenantId: string, from: number, to: number): Promise<StoredBucket[]> {
    if (!(to > from)) return [];
    const now = Math.floor(this.deps.now().getTime() / 1000);
    const minutesFrom = hourStart(now) - RETENTION_DAYS.hours * 24 * HOUR_S;
    const hours: number[] = [];
    for (let h = hourStart(from); h < to; h += HOUR_S) hours.push(h);
    const minuteHours = hours.filter((h) => h >= minutesFrom);
    const days = [...new Set(hours.filter((h) => h < minutesFrom).map(dayStart))];
    const [minutes, hourly] = await Promise.all([
      inParallel(minuteHours, PARALLEL_GETS, (h) => this.hour(tenantId, h, now, { from: Math.max(from, h), to: Math.min(to, h + HOUR_S) })),
      inParallel(days, PARALLEL_GETS, async (d) => {
        const bytes = await this.deps.bucket.get(dayObjectKey(tenantId, d));
        return bytes === undefined ? [] : decodeRollup(bytes, { from, to: Math.min(to, minutesFrom) });
      }),
    ]);
    return [...minutes.flat(), ...hourly.flat()]
      .sort((a, b) => a.start - b.start || a.cluster.localeCompare(b.cluster))
      .map(({ generatedAt: _generatedAt, ...bucket }): StoredBucket => bucket);
  }

  /**
   * The tenant's minute buckets of the hour `h` that start in `window` (within the hour): from its hour
   * object, or from the segments while it has none.
   */
  private async hour(tenantId: string, h: number, now: number, window: StartWindow): Promise<DatedBucket[]> {
    const rollup = await this.deps.bucket.get(hourObjectKey(tenantId, h));
    if (rollup !== undefined) return decodeRollup(rollup, window);
    if (h < hourStart(now) - UNCOMPACTED_HOURS * HOUR_S) return [];
    const keys = await this.deps.bucket.list(segmentPrefix(shardOf(tenantId, this.deps.shards), h));
    const blocks = await inParallel(keys, PARALLEL_GETS, (key) => tenantBlock(this.deps.bucket, key, tenantId, window));
    return latestPerBucket(blocks.flat());
  }
}
