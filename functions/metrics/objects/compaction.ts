/**
 * Compaction (hourly; docs/aws.md#metrics): an hour's segments of every shard become one hour object
 * per tenant — each cluster's minute kept from its latest report — and after a day's last hour, that
 * day's hour objects become one day object per tenant, summed to hourly buckets. Idempotent: a rerun
 * over the same segments writes the same bytes.
 */
import type { Logger } from "../../shared/logger";
import type { ObjectBucket } from "./bucket";
import { DAY_S, HOUR_S, PREFIX, dayObjectKey, dayStart, hourObjectKey, segmentPrefix } from "./keys";
import { type DatedBucket, latestPerBucket, toHours } from "./packed";
import { decodeRollup, encodeRollup, inParallel } from "./rollups";
import { segmentBlocks } from "./segments";

export interface CompactionDeps {
  bucket: ObjectBucket;
  shards: number;
  log: Logger;
}

/** Segments read at once by a compaction. */
const PARALLEL_GETS = 8;

/** One shard's hour: per tenant its minute buckets of that hour, one per cluster and minute. */
async function compactShard(deps: CompactionDeps, shard: number, hour: number): Promise<number> {
  const keys = await deps.bucket.list(segmentPrefix(shard, hour));
  const blocks = new Map<string, (() => DatedBucket[])[]>();
  await inParallel(keys, PARALLEL_GETS, async (key) => {
    const bytes = await deps.bucket.get(key);
    if (bytes === undefined) return;
    for (const block of segmentBlocks(bytes)) blocks.set(block.tenant, [...(blocks.get(block.tenant) ?? []), block.buckets]);
  });
  let written = 0;
  // Tenant by tenant, each block decompressed only now: what is held at once is the shard's compressed hour.
  for (const tenant of [...blocks.keys()].sort()) {
    const minutes = latestPerBucket((blocks.get(tenant) ?? []).flatMap((read) => read())).filter(
      (b) => b.seconds === 60 && b.start >= hour && b.start < hour + HOUR_S,
    );
    if (minutes.length === 0) continue;
    await deps.bucket.put(hourObjectKey(tenant, hour), encodeRollup(tenant, hour, minutes), "application/json");
    written++;
  }
  return written;
}

/** The day objects of the day starting at `day` (epoch seconds), from its hour objects, for every tenant that has any. */
export async function compactDay(deps: CompactionDeps, day: number): Promise<number> {
  const tenants = (await deps.bucket.prefixes(PREFIX.hours)).map((p) => p.slice(PREFIX.hours.length, -1));
  let written = 0;
  for (const tenant of tenants) {
    const hours = Array.from({ length: 24 }, (_, i) => day + i * HOUR_S);
    const minutes = (await inParallel(hours, PARALLEL_GETS, (h) => deps.bucket.get(hourObjectKey(tenant, h)))).flatMap((bytes) =>
      bytes === undefined ? [] : decodeRollup(bytes),
    );
    if (minutes.length === 0) continue;
    await deps.bucket.put(dayObjectKey(tenant, day), encodeRollup(tenant, day, toHours(minutes)), "application/json");
    written++;
  }
  return written;
}

/**
 * Compacts the hour starting at `hour` (epoch seconds) in every shard, and — when it is the last hour
 * of its day — that day. Returns how many objects were written.
 */
export async function compactHour(deps: CompactionDeps, hour: number): Promise<{ hourObjects: number; dayObjects: number }> {
  let hourObjects = 0;
  for (let shard = 0; shard < deps.shards; shard++) hourObjects += await compactShard(deps, shard, hour);
  const dayObjects = (hour + HOUR_S) % DAY_S === 0 ? await compactDay(deps, dayStart(hour)) : 0;
  deps.log.info("metrics compacted", { hour: new Date(hour * 1000).toISOString(), hourObjects, dayObjects });
  return { hourObjects, dayObjects };
}

/**
 * The hour a scheduled compaction at `now` compacts: the last one that ended. Scheduled at 20 past, so
 * the minutes of a report every 5 minutes, or of a 15-minute catch-up, have arrived.
 */
export const hourToCompact = (now: Date): number => {
  const s = Math.floor(now.getTime() / 1000);
  return s - (s % HOUR_S) - HOUR_S;
};
