/**
 * Metrics in the local control plane (`npm start`) and the tests: the bucket in the S3 that the SQS
 * emulator (fauxqs) also serves, the standard metrics queue with its dead-letter queue, a poller that
 * hands what it receives to the ingest function's own handler, and compaction on a timer. The
 * emulator keeps everything in memory: metrics last as long as the process (docs/observability.md#where-it-is-kept).
 */
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateQueueCommand, DeleteMessageBatchCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { type MetricsApi, type MetricsConfig, S3ObjectBucket, compactHour, createMetricsWriter, hourToCompact, metricsApi } from "../metrics/index";
import { type Logger, describeError } from "../shared/logger";
import { MAX_RECEIVES } from "./sqs-local";

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

export interface MetricsLocal {
  config: MetricsConfig;
  /** What the app takes (AppDeps.metrics). */
  api: MetricsApi;
  /** Receives what is on the queue now and writes it, as one ingest invocation per receive; returns the messages handled. */
  drain(): Promise<number>;
  /** Compacts the hour starting at `hour` (epoch seconds), and its day after the day's last hour. */
  compact(hour: number): Promise<{ hourObjects: number; dayObjects: number }>;
  stop(): Promise<void>;
}

/**
 * Creates the bucket and queues on the emulator at `endpoint` (names suffixed with `suffix`, so tests
 * sharing one emulator never mix), and with `windowMs` runs the poller: what arrives within the window
 * is one batch, as Lambda's batching window gathers it (60 s on AWS). `compactEveryMs`: compaction of
 * the last hour that ended, repeated (a rerun writes the same objects).
 */
export async function startMetricsLocal(options: {
  endpoint: string;
  region: string;
  suffix: string;
  log: Logger;
  now?: () => Date;
  windowMs?: number;
  compactEveryMs?: number;
}): Promise<MetricsLocal> {
  const now = options.now ?? (() => new Date());
  const bucketName = `meshplane-metrics-${options.suffix}`;
  const s3 = new S3Client({ region: options.region, endpoint: options.endpoint, forcePathStyle: true, credentials: LOCAL_CREDENTIALS });
  await s3.send(new CreateBucketCommand({ Bucket: bucketName }));
  const sqs = new SQSClient({ region: options.region, endpoint: options.endpoint, credentials: LOCAL_CREDENTIALS });
  const dlqUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `meshplane-metrics-dlq-${options.suffix}` }))).QueueUrl as string;
  const dlqArn = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ["QueueArn"] }))).Attributes?.QueueArn as string;
  const queueUrl = (
    await sqs.send(
      new CreateQueueCommand({
        QueueName: `meshplane-metrics-${options.suffix}`,
        Attributes: { VisibilityTimeout: "30", RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: String(MAX_RECEIVES) }) },
      }),
    )
  ).QueueUrl as string;
  const config: MetricsConfig = { region: options.region, bucket: bucketName, endpoint: options.endpoint, queueUrl, sqsEndpoint: options.endpoint, shards: 2 };
  const bucket = new S3ObjectBucket({ s3, bucket: bucketName });
  const writer = createMetricsWriter({ bucket, shards: config.shards, now, log: options.log });

  /** One batch: everything received until the queue is empty or `windowMs` has passed. */
  const batch = async (windowMs: number): Promise<number> => {
    const records: SQSRecord[] = [];
    const until = Date.now() + windowMs;
    do {
      const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
      const messages = out.Messages ?? [];
      if (messages.length === 0) break;
      for (const m of messages)
        records.push({ messageId: m.MessageId, receiptHandle: m.ReceiptHandle, body: m.Body, attributes: {}, messageAttributes: {} } as unknown as SQSRecord);
    } while (Date.now() < until && records.length < 10_000);
    if (records.length === 0) return 0;
    const { batchItemFailures } = await writer({ Records: records });
    const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
    const done = records.filter((r) => !failed.has(r.messageId));
    for (let i = 0; i < done.length; i += 10)
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.slice(i, i + 10).map((r, j) => ({ Id: String(j), ReceiptHandle: r.receiptHandle })),
        }),
      );
    return records.length;
  };

  const state = { running: options.windowMs !== undefined };
  const loop = (async () => {
    while (state.running) {
      try {
        if ((await batch(options.windowMs ?? 0)) === 0) await new Promise((r) => setTimeout(r, options.windowMs));
      } catch (error) {
        options.log.error("metrics queue poll failed", describeError(error));
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  const compact = (hour: number) => compactHour({ bucket, shards: config.shards, log: options.log }, hour);
  const timer =
    options.compactEveryMs === undefined
      ? undefined
      : setInterval(() => {
          compact(hourToCompact(now())).catch((error: unknown) => options.log.error("metrics compaction failed", describeError(error)));
        }, options.compactEveryMs);
  timer?.unref();
  return {
    config,
    api: metricsApi(config, now),
    async drain() {
      let handled = 0;
      for (let n = await batch(0); n > 0; n = await batch(0)) handled += n;
      return handled;
    },
    compact,
    async stop() {
      state.running = false;
      if (timer) clearInterval(timer);
      await loop;
      s3.destroy();
      sqs.destroy();
    },
  };
}
