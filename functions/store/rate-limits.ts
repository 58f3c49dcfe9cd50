import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { conditionFailed, conditionHeld } from "./conditions";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/** A token bucket: it refills `limit` requests per `windowMs` and holds at most `burst`. */
export interface BucketShape {
  limit: number;
  windowMs: number;
  /** At most `limit`; all of it when absent. */
  burst?: number;
}

export interface Lease {
  /** Requests granted (0 when the bucket is empty). */
  granted: number;
  /**
   * Milliseconds until the bucket has a request to give beyond those granted (0: it has some now):
   * when nothing was granted, the Retry-After.
   */
  retryAfterMs: number;
}

/** Attempts at one lease before giving up on a bucket many instances fight over (then: "retry soon"). */
const MAX_ATTEMPTS = 5;
/** How far apart two instances' clocks may be before a bucket written by one is taken as a clock step (µs). */
const CLOCK_STEP_US = 1_000_000;

/** A number attribute of the item a failed condition returns (ALL_OLD, in DynamoDB's wire format). */
function oldNumber(error: unknown, name: string): number | undefined {
  const value = (error as { Item?: Record<string, unknown> }).Item?.[name];
  if (typeof value === "number") return value;
  const wire = (value as { N?: string } | undefined)?.N;
  return wire === undefined ? undefined : Number(wire);
}

/**
 * The shared side of rate limiting: one token bucket per budget, kept as a single number in DynamoDB
 * (GCRA, the "generic cell rate algorithm"): `tat`, the time at which the bucket will be full again,
 * in microseconds. Taking n requests moves it n emission intervals (windowMs / limit) later, from now
 * when the bucket is full; it is allowed while `tat` stays within `burst` intervals of now. That is
 * one conditional write per lease, with no read first: a full bucket is `SET tat = now + n·T` on
 * condition `tat < now`, a partly used one `ADD tat n·T` on condition `now <= tat <= now + burst·T − n·T`.
 * A failed condition returns the item, so the next attempt takes exactly what fits, or says when
 * a request will. Instances take budget in leases (several requests at once) so a request costs a
 * DynamoDB write only every few requests, and the sum over instances never exceeds the bucket.
 * Items expire with the TTL sweep an hour after the bucket would be full again. A `tat` further ahead
 * than any writer within a second of this clock could have left is a clock that stepped back: the
 * bucket starts afresh instead of staying shut for the length of the step.
 */
export class RateLimitStore {
  /** The `tat` this instance last wrote per item: which condition to try first. */
  private readonly lastTat = new Map<string, number>();

  constructor(private readonly deps: StoreDeps) {}

  /**
   * Takes up to `want` requests from the bucket `bucket` of `partition` at `nowMs` (epoch ms): as many
   * as are left when fewer. `partition` keeps a tenant's buckets under its own key prefix.
   */
  async lease(partition: string, bucket: string, shape: BucketShape, want: number, nowMs: number): Promise<Lease> {
    const interval = Math.ceil((shape.windowMs * 1000) / shape.limit);
    const burst = Math.max(1, Math.min(shape.burst ?? shape.limit, shape.limit));
    const tolerance = burst * interval;
    const now = Math.floor(nowMs * 1000);
    // The bucket's shape is part of its key: a deploy that changes a budget, or two configurations on
    // one table, never share a bucket.
    const key = { PK: partition, SK: `RL#${bucket}#${interval}x${burst}` };
    const cacheKey = `${partition}|${key.SK}`;
    let n = Math.max(1, Math.min(want, burst));
    let full = (this.lastTat.get(cacheKey) ?? 0) < now;
    const ttl = Math.ceil((now + tolerance) / 1e6) + 3600;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      try {
        const out = await this.deps.doc.send(
          full
            ? new UpdateCommand({
                TableName: this.deps.table,
                Key: key,
                UpdateExpression: "SET tat = :tat, #ttl = :ttl",
                ConditionExpression: "attribute_not_exists(tat) OR tat < :now",
                ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
                ExpressionAttributeValues: { ":tat": now + n * interval, ":now": now, ":ttl": ttl },
                ReturnValuesOnConditionCheckFailure: "ALL_OLD",
              })
            : new UpdateCommand({
                TableName: this.deps.table,
                Key: key,
                UpdateExpression: "ADD tat :step SET #ttl = :ttl",
                ConditionExpression: "tat BETWEEN :now AND :max",
                ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
                ExpressionAttributeValues: { ":step": n * interval, ":now": now, ":max": now + tolerance - n * interval, ":ttl": ttl },
                ReturnValues: "UPDATED_NEW",
                ReturnValuesOnConditionCheckFailure: "ALL_OLD",
              }),
        );
        const tat = full ? now + n * interval : Number(out.Attributes?.tat ?? now + n * interval);
        this.remember(cacheKey, tat);
        return { granted: n, retryAfterMs: Math.max(0, Math.ceil((tat + interval - tolerance - now) / 1000)) };
      } catch (error) {
        if (!conditionFailed(error)) throw error;
        const tat = oldNumber(error, "tat");
        if (tat === undefined) {
          full = true;
          continue;
        }
        if (tat > now + tolerance + CLOCK_STEP_US) {
          // No writer whose clock agreed with ours within a second could have left this: a clock
          // stepped back (or one instance's runs far ahead). Start the bucket afresh rather than shut
          // the budget for the length of the step; a write that changed it meanwhile wins.
          await conditionHeld(
            this.deps.doc.send(
              new UpdateCommand({
                TableName: this.deps.table,
                Key: key,
                UpdateExpression: "SET tat = :now",
                ConditionExpression: "tat = :old",
                ExpressionAttributeValues: { ":now": now - 1, ":old": tat },
              }),
            ),
          );
          full = true;
          continue;
        }
        this.remember(cacheKey, tat);
        const from = Math.max(tat, now);
        const fit = Math.floor((now + tolerance - from) / interval);
        if (fit < 1) return { granted: 0, retryAfterMs: Math.max(1, Math.ceil((from + interval - tolerance - now) / 1000)) };
        n = Math.min(n, fit);
        full = tat < now;
      }
    }
    return { granted: 0, retryAfterMs: Math.max(1, Math.ceil(interval / 1000)) };
  }

  private remember(key: string, tat: number): void {
    if (this.lastTat.size >= 10_000) this.lastTat.clear();
    this.lastTat.set(key, tat);
  }
}
