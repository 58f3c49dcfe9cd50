import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { StoreDeps } from "./resources";
import { TTL_ATTRIBUTE } from "./table";

/**
 * The shared side of rate limiting: per bucket and time window, a counter of the requests every API
 * instance has taken from that window's budget. Instances take budget in leases (several requests at
 * once) so a request costs a DynamoDB write only every few requests, and the sum over instances never
 * exceeds the window's limit. Items expire with the TTL sweep.
 */
export class RateLimitStore {
  constructor(private readonly deps: StoreDeps) {}

  /**
   * Takes `want` requests from the budget of `bucket` in the window starting at `windowStart` (epoch
   * ms), or, when fewer are left, one. Returns how many were granted (0 when the window is used up).
   * `partition` keeps a tenant's counters under its own key prefix.
   */
  async lease(partition: string, bucket: string, windowStart: number, windowMs: number, limit: number, want: number): Promise<number> {
    for (const n of want > 1 ? [want, 1] : [1]) {
      try {
        await this.deps.doc.send(
          new UpdateCommand({
            TableName: this.deps.table,
            // The window's length is part of its key: windows of different lengths (a deploy that
            // changes a budget, two configurations on one table) never share a counter.
            Key: { PK: partition, SK: `RL#${bucket}#${windowMs}#${windowStart}` },
            UpdateExpression: "ADD used :n SET #ttl = :ttl",
            ConditionExpression: "attribute_not_exists(used) OR used <= :max",
            ExpressionAttributeNames: { "#ttl": TTL_ATTRIBUTE },
            ExpressionAttributeValues: { ":n": n, ":max": limit - n, ":ttl": Math.ceil((windowStart + windowMs) / 1000) + 3600 },
          }),
        );
        return n;
      } catch (error) {
        if ((error as { name?: string }).name !== "ConditionalCheckFailedException") throw error;
      }
    }
    return 0;
  }
}
