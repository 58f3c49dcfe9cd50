/**
 * Where the metrics bucket keeps what (docs/aws.md#metrics): segments under `seg/<shard>/<hour>/`,
 * a tenant's hour objects under `h/<tenant>/` and day objects under `d/<tenant>/`. Each prefix has its
 * own lifecycle rule (infra/lib/metrics.ts); per-tenant objects are keyed under the tenant id.
 */

export const HOUR_S = 3600;
export const DAY_S = 86_400;

/** The prefixes the lifecycle rules and the IAM grants name. */
export const PREFIX = { segments: "seg/", hours: "h/", days: "d/" } as const;

/** Days each kind of object is kept (the bucket's lifecycle rules; the reader goes by them too). */
export const RETENTION_DAYS = { segments: 1, hours: 3, days: 32 } as const;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** `yyyymmddHH` (UTC) of the hour holding `epochSeconds`. */
export function hourKey(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}${pad(d.getUTCHours())}`;
}

/** `yyyymmdd` (UTC) of the day holding `epochSeconds`. */
export const dayKey = (epochSeconds: number): string => hourKey(epochSeconds).slice(0, 8);

export const hourStart = (epochSeconds: number): number => epochSeconds - (epochSeconds % HOUR_S);
export const dayStart = (epochSeconds: number): number => epochSeconds - (epochSeconds % DAY_S);

/**
 * The shard of a tenant: segments of one shard are written by one ingest batch together and compacted
 * together. FNV-1a of the tenant id, so every part agrees without a lookup.
 */
export function shardOf(tenantId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < tenantId.length; i++) h = Math.imul(h ^ tenantId.charCodeAt(i), 0x01000193) >>> 0;
  return h % shards;
}

export const segmentPrefix = (shard: number, hourStartS: number): string => `${PREFIX.segments}${shard}/${hourKey(hourStartS)}/`;
/** A segment's key: its writing time first, so a listing is in the order they were written. */
export const segmentKey = (shard: number, hourStartS: number, writtenMs: number, id: string): string =>
  `${segmentPrefix(shard, hourStartS)}${pad(writtenMs, 15)}-${id}.seg`;
export const hourObjectKey = (tenantId: string, hourStartS: number): string => `${PREFIX.hours}${tenantId}/${hourKey(hourStartS)}.json.gz`;
export const dayObjectKey = (tenantId: string, dayStartS: number): string => `${PREFIX.days}${tenantId}/${dayKey(dayStartS)}.json.gz`;
