/**
 * The ingest function: a batch from the metrics queue (up to 10,000 messages gathered for up to 60 s)
 * written as one segment per shard and hour of minutes. Partial batch failures: a message whose
 * segment could not be written is retried; one that cannot be decoded is logged and dropped (it would
 * never decode). At least once: a message written twice is the same report twice, and readers keep
 * one bucket per cluster and minute (docs/style.md#8-async-work-is-at-least-once-idempotent-and-partial).
 */
import { randomUUID } from "node:crypto";
import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { type Logger, describeError } from "../../shared/logger";
import { decodeMessage, reportBuckets } from "../message";
import type { ObjectBucket } from "./bucket";
import { hourStart, segmentKey, shardOf } from "./keys";
import type { DatedBucket } from "./packed";
import { encodeSegment } from "./segments";

export interface WriterDeps {
  bucket: ObjectBucket;
  /** Shards tenants are spread over (docs/aws.md#metrics); every part must agree on it. */
  shards: number;
  now: () => Date;
  log: Logger;
}

interface Pending {
  shard: number;
  hour: number;
  messages: Set<string>;
  byTenant: Map<string, DatedBucket[]>;
}

/** A batch's buckets by shard and hour (a message that does not decode is logged and left out). */
function groupBatch(event: SQSEvent, shards: number, log: Logger): Map<string, Pending> {
  const pending = new Map<string, Pending>();
  for (const record of event.Records) {
    let buckets: DatedBucket[];
    let tenant: string;
    try {
      const message = decodeMessage(record.body);
      tenant = message.tenant;
      buckets = reportBuckets(message);
    } catch (error) {
      log.error("dropped a metrics message that does not decode", { messageId: record.messageId, ...describeError(error) });
      continue;
    }
    const shard = shardOf(tenant, shards);
    for (const b of buckets) {
      const hour = hourStart(b.start);
      const key = `${shard}|${hour}`;
      let group = pending.get(key);
      if (group === undefined) {
        group = { shard, hour, messages: new Set(), byTenant: new Map() };
        pending.set(key, group);
      }
      group.messages.add(record.messageId);
      const own = group.byTenant.get(tenant) ?? [];
      own.push(b);
      group.byTenant.set(tenant, own);
    }
  }
  return pending;
}

/** The ingest function's handler (the same code on Lambda and in the local poller). */
export function createMetricsWriter(deps: WriterDeps): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const failed = new Set<string>();
    const groups = [...groupBatch(event, deps.shards, deps.log).values()];
    await Promise.all(
      groups.map(async (g) => {
        const key = segmentKey(g.shard, g.hour, deps.now().getTime(), randomUUID());
        try {
          await deps.bucket.put(key, encodeSegment(g.byTenant), "application/octet-stream");
        } catch (error) {
          deps.log.error("could not write a metrics segment", { key, ...describeError(error) });
          for (const id of g.messages) failed.add(id);
        }
      }),
    );
    return { batchItemFailures: [...failed].map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
