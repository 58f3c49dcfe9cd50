import type { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs";
import { z } from "zod";

/** The body of a translate job. Parsed per record by the worker: the queue is a boundary too. */
export const translateJob = z.strictObject({
  tenantId: z.string().min(1),
  revision: z.number().int().min(1),
  /** Run even if the revision is already translated: refreshes signatures nearing expiry. */
  force: z.boolean().optional(),
});
export type TranslateJob = z.infer<typeof translateJob>;

export interface QueueConfig {
  region: string;
  queueUrl: string;
  /** Set for the local SQS emulator. */
  endpoint?: string;
}

export interface TranslateQueue {
  /** `dedupId` defaults to `<tenant>-<revision>`; a forced job passes its own. */
  enqueue(job: TranslateJob, dedupId?: string): Promise<void>;
}

/**
 * The FIFO translate queue. MessageGroupId = tenant, so one tenant is translated by one worker at a
 * time while tenants run in parallel; the dedup id is tenant + revision, so a retried enqueue of the
 * same change is dropped by SQS itself.
 */
export class SqsTranslateQueue implements TranslateQueue {
  private sqs?: Promise<{ client: SQSClient; SendMessageCommand: typeof SendMessageCommand }>;

  constructor(private readonly config: QueueConfig) {}

  async enqueue(job: TranslateJob, dedupId = `${job.tenantId}-${job.revision}`): Promise<void> {
    const { client, SendMessageCommand } = await this.sqsClient();
    await client.send(
      new SendMessageCommand({
        QueueUrl: this.config.queueUrl,
        MessageBody: JSON.stringify(job),
        MessageGroupId: job.tenantId,
        MessageDeduplicationId: dedupId,
      }),
    );
  }

  /** The SQS client, made (its module loaded) on the first enqueue: most cold starts enqueue nothing. */
  private sqsClient() {
    this.sqs ??= import("@aws-sdk/client-sqs").then((m) => ({
      client: new m.SQSClient({
        region: this.config.region,
        ...(this.config.endpoint ? { endpoint: this.config.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } } : {}),
      }),
      SendMessageCommand: m.SendMessageCommand,
    }));
    return this.sqs;
  }
}
