import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";

/** Where the API puts validated metrics reports: the metrics queue (SQS standard, not the FIFO translate queue). */
export interface MetricsQueue {
  /** Sends one message body with the tenant and cluster as attributes. */
  send(body: string, attributes: { tenant: string; cluster: string }): Promise<void>;
}

/** The metrics queue in SQS (or the local emulator when `endpoint` is set). */
export class SqsMetricsQueue implements MetricsQueue {
  private readonly sqs: SQSClient;

  constructor(private readonly options: { region: string; queueUrl: string; endpoint?: string }) {
    this.sqs = new SQSClient({
      region: options.region,
      ...(options.endpoint ? { endpoint: options.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
    });
  }

  async send(body: string, attributes: { tenant: string; cluster: string }): Promise<void> {
    await this.sqs.send(
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
