/**
 * The metrics parts as each runtime wires them (functions/entries/runtime.ts, functions/local): the
 * API's side (the queue it sends to, the reader the read routes use), the ingest function's writer and
 * the compaction, all over one bucket.
 */
import type { Logger } from "../shared/logger";
import type { BucketLocation, ObjectBucket } from "./objects/bucket";
import { compactHour, hourToCompact } from "./objects/compaction";
import { S3MetricsReader } from "./objects/reader";
import { createMetricsWriter } from "./objects/writer";
import { type MetricsQueue, SqsMetricsQueue } from "./queue";
import type { MetricsReader } from "./stored";

/** What the API holds of metrics: the reader for the read routes, and the queue reports go to. */
export interface MetricsApi extends MetricsReader {
  queue: MetricsQueue;
}

export interface MetricsConfig extends BucketLocation {
  queueUrl: string;
  /** The SQS endpoint of the local emulator. */
  sqsEndpoint?: string;
  shards: number;
}

/**
 * The bucket, its S3 client loaded on first use: the API loads `@aws-sdk/client-s3` with its first
 * metrics read, not at start (docs/aws.md#function-bundles-and-cold-start).
 */
export function lazyBucket(location: BucketLocation): ObjectBucket {
  let loaded: Promise<ObjectBucket> | undefined;
  const bucket = () => (loaded ??= import("./objects/bucket").then((m) => m.s3Bucket(location)));
  return {
    put: async (key, body, type) => (await bucket()).put(key, body, type),
    get: async (key) => (await bucket()).get(key),
    range: async (key, start, end) => (await bucket()).range(key, start, end),
    list: async (prefix) => (await bucket()).list(prefix),
    prefixes: async (prefix) => (await bucket()).prefixes(prefix),
  };
}

/** The API's metrics: reads over the bucket, reports to the queue. */
export function metricsApi(config: MetricsConfig, now: () => Date = () => new Date()): MetricsApi {
  const reader = new S3MetricsReader({ bucket: lazyBucket(config), shards: config.shards, now });
  const queue = new SqsMetricsQueue({ region: config.region, queueUrl: config.queueUrl, ...(config.sqsEndpoint ? { endpoint: config.sqsEndpoint } : {}) });
  return { queue, buckets: (tenantId, from, to) => reader.buckets(tenantId, from, to) };
}

/** The ingest function's handler over the bucket. */
export const metricsWriter = (config: MetricsConfig, log: Logger, now: () => Date = () => new Date()) =>
  createMetricsWriter({ bucket: lazyBucket(config), shards: config.shards, now, log });

/** The scheduled compaction: the last hour that ended before `now` (and its day, after the day's last hour). */
export const compactMetrics = (config: MetricsConfig, log: Logger, now: Date) =>
  compactHour({ bucket: lazyBucket(config), shards: config.shards, log }, hourToCompact(now));
