export type { MetricsHealth, MetricsReader, StoredBucket, StoredRow } from "./stored";
export { type IngestDeps, type ReportingAgent, acceptMetricsReport } from "./ingest";
export { type MetricsQueue, SqsMetricsQueue } from "./queue";
export { type MetricsApi, type MetricsConfig, compactMetrics, lazyBucket, metricsApi, metricsWriter } from "./service";
export { type BucketLocation, type ObjectBucket, S3ObjectBucket, s3Bucket } from "./objects/bucket";
export { type CompactionDeps, compactDay, compactHour, hourToCompact } from "./objects/compaction";
export { HOUR_S, DAY_S, PREFIX, RETENTION_DAYS } from "./objects/keys";
export { S3MetricsReader } from "./objects/reader";
export { type WriterDeps, createMetricsWriter } from "./objects/writer";
