/**
 * What metrics cost per cluster-month (docs/aws.md#metrics), from what the code does: agents' 500-edge
 * reports taken in by the API's use case (CPU per report, SQS requests and bytes), the queue's
 * messages written by the ingest function's handler (PUTs, bytes, CPU), and an hour compacted
 * (LISTs, GETs, PUTs, bytes, CPU), all against the S3 and SQS emulator. Then priced at 1,000
 * clusters, with a report every 5 minutes (the default) and every 60 s (for the record).
 */
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { CreateQueueCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { SQSRecord } from "aws-lambda";
import { startSqsLocal } from "../../functions/local/sqs-local";
import {
  type MetricsQueue,
  type ObjectBucket,
  S3ObjectBucket,
  SqsMetricsQueue,
  acceptMetricsReport,
  compactDay,
  compactHour,
  createMetricsWriter,
} from "../../functions/metrics/index";
import { createLogger } from "../../functions/shared/logger";
import type { MetricsHealthStore } from "../../functions/store/metrics-health";
import { sampleReport } from "../support/metrics-seed";
import { PRICE } from "./_prices";

const CLUSTERS = Number(process.env.CLUSTERS ?? 20);
const PER_TENANT = Number(process.env.PER_TENANT ?? 10);
const EDGES = Number(process.env.EDGES ?? 500);
const MONTH_S = 30 * 86_400;
const SHARDS = 2;
/** Lambda's pollers on the queue: up to this many ingest invocations per batching window (maxConcurrency). */
const INVOCATIONS_PER_WINDOW = 2;
const round = (usd: number) => Math.round(usd * 1_000_000) / 1_000_000;
const KiB64 = 64 * 1024;

const counts = { put: 0, get: 0, list: 0, putBytes: 0, sqsSend: 0, sqsChunks: 0, sqsBytes: 0, healthReads: 0, healthWrites: 0 };

function counted(bucket: ObjectBucket): ObjectBucket {
  return {
    put: (key, body, type) => (counts.put++, (counts.putBytes += body.byteLength), bucket.put(key, body, type)),
    get: (key) => (counts.get++, bucket.get(key)),
    range: (key, s, e) => (counts.get++, bucket.range(key, s, e)),
    list: (prefix) => (counts.list++, bucket.list(prefix)),
    prefixes: (prefix) => (counts.list++, bucket.prefixes(prefix)),
  };
}

const cpu = async <T>(fn: () => Promise<T>): Promise<[T, number]> => {
  const start = process.cpuUsage();
  const out = await fn();
  const used = process.cpuUsage(start);
  return [out, (used.user + used.system) / 1000];
};

const sqsServer = await startSqsLocal();
const region = "us-east-1";
const credentials = { accessKeyId: "local", secretAccessKey: "local" };
const s3 = new S3Client({ region, endpoint: sqsServer.endpoint, forcePathStyle: true, credentials });
const sqs = new SQSClient({ region, endpoint: sqsServer.endpoint, credentials });
const suffix = randomBytes(4).toString("hex");
await s3.send(new CreateBucketCommand({ Bucket: `metrics-${suffix}` }));
const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: `metrics-${suffix}` }))).QueueUrl as string;
const bucket = counted(new S3ObjectBucket({ s3, bucket: `metrics-${suffix}` }));
const sqsQueue = new SqsMetricsQueue({ region, queueUrl, endpoint: sqsServer.endpoint });
const queue: MetricsQueue = {
  send: (body, attributes) => {
    counts.sqsSend++;
    counts.sqsBytes += body.length;
    counts.sqsChunks += Math.ceil(body.length / KiB64);
    return sqsQueue.send(body, attributes);
  },
};
// The health item is written only when it changes: a steady cluster reads it once per API instance.
const health = {
  get: async () => (counts.healthReads++, { state: "ok", at: "" }),
  put: async () => void counts.healthWrites++,
} as unknown as MetricsHealthStore;
const log = createLogger({}, () => {});
const hour = Math.floor(Date.now() / 3_600_000) * 3600 - 2 * 3600;

// A report every 5 minutes over one hour from every cluster: 12 reports of 5 minutes each.
let apiMs = 0;
let reports = 0;
for (let r = 0; r < 12; r++) {
  for (let c = 0; c < CLUSTERS; c++) {
    const cluster = `c${c}`;
    const minutes = Array.from({ length: 5 }, (_, m) => hour + (r * 5 + m) * 60);
    const report = sampleReport(cluster, minutes, { edges: EDGES, requests: 50 + c, failures: c % 3, generatedAt: Date.now() });
    const body = new Uint8Array(gzipSync(JSON.stringify(report)));
    const [, ms] = await cpu(() =>
      acceptMetricsReport({ queue, health, now: () => new Date() }, { tenantId: `t${Math.floor(c / PER_TENANT)}`, cluster }, body, "gzip"),
    );
    apiMs += ms;
    reports++;
  }
}

// The ingest function: what the queue holds, in batches as one batching window gathers them.
const writer = createMetricsWriter({ bucket, shards: SHARDS, now: () => new Date(), log });
let ingestMs = 0;
let batches = 0;
const segmentPutsBefore = counts.put;
for (;;) {
  const records: SQSRecord[] = [];
  for (let i = 0; i < CLUSTERS; i += 10) {
    const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: 600 }));
    for (const m of out.Messages ?? []) records.push({ messageId: m.MessageId, receiptHandle: m.ReceiptHandle, body: m.Body } as SQSRecord);
  }
  if (records.length === 0) break;
  const [result, ms] = await cpu(() => writer({ Records: records }));
  if (result.batchItemFailures.length > 0) throw new Error("the ingest handler failed records");
  ingestMs += ms;
  batches++;
}
const segmentPuts = counts.put - segmentPutsBefore;
const segmentBytes = counts.putBytes;

// The hour compacted, then its day.
const before = { ...counts };
const [compacted, compactMs] = await cpu(() => compactHour({ bucket, shards: SHARDS, log }, hour));
const hourObjectBytes = counts.putBytes - before.putBytes;
if (compacted.hourObjects !== Math.ceil(CLUSTERS / PER_TENANT)) throw new Error(`expected an hour object per tenant, got ${compacted.hourObjects}`);
const compaction = { put: counts.put - before.put, get: counts.get - before.get, list: counts.list - before.list };
const beforeDay = { ...counts };
await compactDay({ bucket, shards: SHARDS, log }, hour - (hour % 86_400));
const dayBytesPerHour = counts.putBytes - beforeDay.putBytes;

/** A cluster-month at 1,000 clusters with a report every `sendSeconds`. */
function clusterMonth(sendSeconds: number, fleet = 1000) {
  const perReport = { apiMs: apiMs / reports, sqsChunks: counts.sqsChunks / reports, segmentBytes: segmentBytes / reports };
  const monthReports = MONTH_S / sendSeconds;
  const tenants = fleet / PER_TENANT;
  const windows = MONTH_S / 60;
  const ingestInvocations = windows * INVOCATIONS_PER_WINDOW;
  const items: Record<string, number> = {
    // The API: the request, its Lambda time, the access log line, the agent's head read and its jti write.
    "HTTP API requests": monthReports * PRICE.httpApiRequest,
    "API Lambda": monthReports * (PRICE.lambdaRequest + Math.max(1, Math.ceil(perReport.apiMs)) * PRICE.lambdaMs),
    "API access logs": (monthReports * 250 * PRICE.logGb) / 1e9,
    "DynamoDB head read and jti write": monthReports * (0.5 * PRICE.readUnit + PRICE.writeUnit),
    // SQS: each 64 KiB of a message a send; receives and deletes in tens.
    "SQS requests": monthReports * (perReport.sqsChunks + 0.2) * PRICE.sqsRequest,
    // The ingest function: one invocation per poller and window, its time per report received.
    "ingest Lambda": (ingestInvocations * PRICE.lambdaRequest) / fleet + monthReports * (ingestMs / reports) * PRICE.lambdaMs,
    "segment PUTs": (ingestInvocations * SHARDS * PRICE.s3Put) / fleet,
    // Compaction: hourly, per shard its segments' GETs and LIST, per tenant an hour object; per day a day object per tenant.
    "compaction Lambda": (720 * PRICE.lambdaRequest) / fleet + (compactMs / CLUSTERS) * 720 * PRICE.lambdaMs,
    "compaction requests":
      (720 * (SHARDS * (PRICE.s3Put + 60 * INVOCATIONS_PER_WINDOW * PRICE.s3Get)) +
        720 * tenants * PRICE.s3Put +
        30 * tenants * (PRICE.s3Put + 24 * PRICE.s3Get)) /
      fleet,
    // Storage: segments a day, hour objects 3 days, day objects 32 (each until the midnight after).
    "S3 storage":
      ((((perReport.segmentBytes * 3600) / 300) * 1.5 * 24 + (hourObjectBytes / CLUSTERS) * 3.5 * 24 + (dayBytesPerHour / CLUSTERS) * 24 * 32.5) / 1e9 / 30) *
      PRICE.s3GbMonth,
  };
  const total = Object.values(items).reduce((a, b) => a + b, 0);
  return { total: round(total), items: Object.fromEntries(Object.entries(items).map(([k, v]) => [k, round(v)])) };
}

const fiveMinutes = clusterMonth(300);
const everyMinute = clusterMonth(60);
console.log(
  `per report (${EDGES} edges, 5 minutes): API CPU ${(apiMs / reports).toFixed(1)} ms, SQS ${(counts.sqsBytes / reports / 1024).toFixed(1)} KiB in ${(counts.sqsChunks / reports).toFixed(2)} requests`,
);
console.log(
  `ingest: ${batches} batches, ${segmentPuts} segment PUTs, ${(ingestMs / reports).toFixed(1)} ms per report; compaction: ${JSON.stringify(compaction)} in ${compactMs.toFixed(0)} ms`,
);
console.log("cluster-month, 5-minute reports:", fiveMinutes.items);
console.log("cluster-month, 60 s reports:", everyMinute.items);
s3.destroy();
sqs.destroy();
await sqsServer.stop();
console.log(
  JSON.stringify({
    bench: "metrics-cost",
    clusters: CLUSTERS,
    edges: EDGES,
    report_api_cpu_ms: Math.round((apiMs / reports) * 10) / 10,
    report_sqs_bytes: Math.round(counts.sqsBytes / reports),
    report_sqs_requests: counts.sqsChunks / reports,
    segment_puts: segmentPuts,
    hour_object_bytes_per_cluster: Math.round(hourObjectBytes / CLUSTERS),
    compaction_requests: compaction,
    cluster_month_usd_metrics_300s: fiveMinutes.total,
    cluster_month_usd_metrics_60s: everyMinute.total,
    fleet_month_usd_metrics_300s_1000: Math.round(fiveMinutes.total * 1000 * 100) / 100,
  }),
);
