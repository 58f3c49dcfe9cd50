import { z } from "zod";
import { type SqsSender, sqsOnFirstUse } from "../shared/sqs";

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
  /** The SQS client, made (its module loaded) on the first enqueue: most cold starts enqueue nothing. */
  private readonly sqsClient: () => Promise<SqsSender>;

  constructor(private readonly config: QueueConfig) {
    this.sqsClient = sqsOnFirstUse(config);
  }

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
}
