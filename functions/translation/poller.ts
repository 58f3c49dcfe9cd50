import { DeleteMessageBatchCommand, ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSRecord } from "aws-lambda";
import type { Logger } from "../shared/logger";
import { describeError } from "../shared/logger";

/**
 * What Lambda's SQS event source does, for the local control plane: long-poll the queue, hand
 * batches to the same handler, delete what succeeded, and leave failures to become visible again
 * (the queue's redrive policy moves them to the DLQ after maxReceiveCount).
 */
export function startPoller(options: {
  sqs: SQSClient;
  queueUrl: string;
  handler: (event: SQSEvent) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;
  log: Logger;
  waitSeconds?: number;
}): { stop: () => Promise<void> } {
  const state = { running: true };
  const loop = (async () => {
    while (state.running) {
      try {
        const out = await options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: options.waitSeconds ?? 1,
            MessageSystemAttributeNames: ["All"],
          }),
        );
        const messages = out.Messages ?? [];
        if (messages.length === 0) continue;
        const records: SQSRecord[] = messages.map((m) => ({
          messageId: m.MessageId as string,
          receiptHandle: m.ReceiptHandle as string,
          body: m.Body as string,
          attributes: m.Attributes as unknown as SQSRecord["attributes"],
          messageAttributes: {},
          md5OfBody: m.MD5OfBody as string,
          eventSource: "aws:sqs",
          eventSourceARN: options.queueUrl,
          awsRegion: "local",
        }));
        const { batchItemFailures } = await options.handler({ Records: records });
        const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
        const done = records.filter((r) => !failed.has(r.messageId));
        if (done.length > 0) {
          await options.sqs.send(
            new DeleteMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
          );
        }
      } catch (error) {
        if (state.running) options.log.error("queue poll failed", describeError(error));
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
  return {
    stop: async () => {
      state.running = false;
      await loop;
    },
  };
}
