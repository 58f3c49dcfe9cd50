import { Duration, RemovalPolicy } from "aws-cdk-lib";
import { Rule, RuleTargetInput, Schedule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { type IGrantable, PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { CfnFunction } from "aws-cdk-lib/aws-lambda";
import { SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { BlockPublicAccess, Bucket, BucketEncryption } from "aws-cdk-lib/aws-s3";
import { Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { FUNCTION_ENTRIES } from "./entries";
import { type FunctionDefaults, type MeshplaneFunction, stackFunction } from "./function";

/** Days each prefix of the metrics bucket is kept (functions/metrics/objects/keys.ts reads by the same). */
export const METRICS_RETENTION_DAYS = { "seg/": 1, "h/": 3, "d/": 32 } as const;

/** The ingest function's timeout; the queue's visibility timeout is six times it, as Lambda's SQS event source advises. */
const INGEST_TIMEOUT = Duration.seconds(60);

/**
 * Golden signals (docs/aws.md#metrics): the metrics bucket (segments, hour and day objects, each prefix
 * expiring by its own lifecycle rule), the standard metrics queue and its dead-letter queue, and the
 * ingest function on that queue (batches of up to 10,000 gathered for up to 60 s, at most 2 at once).
 * The API only sends to the queue and reads the bucket; the ingest function only writes segments;
 * the maintenance function compacts them at 20 past every hour.
 */
export class MeshplaneMetrics extends Construct {
  readonly bucket: Bucket;
  readonly queue: Queue;
  readonly dlq: Queue;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.bucket = new Bucket(this, "Bucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      lifecycleRules: [
        ...Object.entries(METRICS_RETENTION_DAYS).map(([prefix, days]) => ({ id: `expire-${prefix.slice(0, -1)}`, prefix, expiration: Duration.days(days) })),
        { id: "abort-uploads", abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: props.removalPolicy === RemovalPolicy.DESTROY,
    });
    this.dlq = new Queue(this, "Dlq", { retentionPeriod: Duration.days(14), encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
    this.queue = new Queue(this, "Queue", {
      visibilityTimeout: Duration.seconds(6 * INGEST_TIMEOUT.toSeconds()),
      // A report older than a day is past its segments' retention anyway.
      retentionPeriod: Duration.days(1),
      deadLetterQueue: { queue: this.dlq, maxReceiveCount: 5 },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  }

  /** What every function reads to find the metrics store. */
  get environment(): Record<string, string> {
    return { MESHPLANE_METRICS_BUCKET: this.bucket.bucketName, MESHPLANE_METRICS_QUEUE_URL: this.queue.queueUrl };
  }

  /** The ingest function: writes segments (`seg/*`) and nothing else. */
  addIngest(defaults: FunctionDefaults): MeshplaneFunction {
    const fn = stackFunction(this, "IngestFunction", defaults, {
      entry: FUNCTION_ENTRIES.metricsIngest,
      description: "meshplane metrics ingest",
      timeout: INGEST_TIMEOUT,
    });
    (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = 2;
    fn.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 10_000, maxBatchingWindow: Duration.seconds(60), reportBatchItemFailures: true, maxConcurrency: 2 }),
    );
    fn.addToRolePolicy(new PolicyStatement({ actions: ["s3:PutObject"], resources: [this.bucket.arnForObjects("seg/*")] }));
    return fn;
  }

  /** The API: sends reports to the queue, reads every prefix for the read routes. */
  grantApi(api: IGrantable): void {
    api.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ["sqs:SendMessage"], resources: [this.queue.queueArn] }));
    this.grantRead(api, ["seg/", "h/", "d/"]);
  }

  /** The maintenance function: compaction reads segments and hour objects, writes hour and day objects; at 20 past every hour. */
  grantCompaction(maintenance: MeshplaneFunction): void {
    this.grantRead(maintenance, ["seg/", "h/"]);
    maintenance.addToRolePolicy(
      new PolicyStatement({ actions: ["s3:PutObject"], resources: [this.bucket.arnForObjects("h/*"), this.bucket.arnForObjects("d/*")] }),
    );
    new Rule(this, "CompactionSchedule", {
      schedule: Schedule.cron({ minute: "20" }),
      targets: [new LambdaFunction(maintenance, { event: RuleTargetInput.fromObject({ task: "compact-metrics" }) })],
    });
  }

  private grantRead(grantee: IGrantable, prefixes: string[]): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ["s3:GetObject"], resources: prefixes.map((p) => this.bucket.arnForObjects(`${p}*`)) }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ["s3:ListBucket"],
        resources: [this.bucket.bucketArn],
        conditions: { StringLike: { "s3:prefix": prefixes.map((p) => `${p}*`) } },
      }),
    );
  }
}
