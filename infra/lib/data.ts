import { RemovalPolicy } from "aws-cdk-lib";
import { AttributeType, BillingMode, Table, TableEncryption } from "aws-cdk-lib/aws-dynamodb";
import { type DeadLetterQueue, Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Duration } from "aws-cdk-lib";
import { Construct } from "constructs";

/** How often a translate job may fail before it is parked in the DLQ (the local launcher uses the same). */
export const MAX_RECEIVES = 5;

/** The one table (PK/SK, TTL on `ttl`) and the FIFO translate queue with its dead-letter queue. */
export class MeshplaneData extends Construct {
  readonly table: Table;
  readonly queue: Queue;
  readonly dlq: Queue;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy; deletionProtection: boolean }) {
    super(scope, id);
    this.table = new Table(this, "Table", {
      partitionKey: { name: "PK", type: AttributeType.STRING },
      sortKey: { name: "SK", type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: "ttl",
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    this.dlq = new Queue(this, "TranslateDlq", {
      fifo: true,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const deadLetterQueue: DeadLetterQueue = { queue: this.dlq, maxReceiveCount: MAX_RECEIVES };
    this.queue = new Queue(this, "TranslateQueue", {
      fifo: true,
      // Six times the worker's timeout, as Lambda's SQS event source recommends.
      visibilityTimeout: Duration.seconds(6 * 120),
      deadLetterQueue,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
  }
}
