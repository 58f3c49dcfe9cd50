import { type SqsSender, sqsOnFirstUse } from "../shared/sqs";

/** Where the API puts validated metrics reports: the metrics queue (SQS standard, not the FIFO translate queue). */
export interface MetricsQueue {
  /** Sends one message body with the tenant and cluster as attributes. */
  send(body: string, attributes: { tenant: string; cluster: string }): Promise<void>;
}

/**
 * The metrics queue in SQS (or the local emulator when `endpoint` is set); its client, and the SDK's
 * module, made on the first report, not at the API's start (docs/aws.md#function-bundles-and-cold-start).
 */
export class SqsMetricsQueue implements MetricsQueue {
  private readonly sqsClient: () => Promise<SqsSender>;

  constructor(private readonly options: { region: string; queueUrl: string; endpoint?: string }) {
    this.sqsClient = sqsOnFirstUse(options);
  }

  async send(body: string, attributes: { tenant: string; cluster: string }): Promise<void> {
    const { client, SendMessageCommand } = await this.sqsClient();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.options.queueUrl,
        MessageBody: body,
        MessageAttributes: {
          tenant: { DataType: "String", StringValue: attributes.tenant },
          cluster: { DataType: "String", StringValue: attributes.cluster },
        },
      }),
    );
  }
}
