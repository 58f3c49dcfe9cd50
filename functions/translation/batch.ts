import type { SQSBatchResponse, SQSEvent } from "aws-lambda";
import { translateJob } from "../queue/translate-queue";
import { describeError } from "../shared/logger";
import { type WorkerDeps, translateTenant } from "./job";
import { WarmInputs } from "./warm-input";

/**
 * The SQS handler: each record is parsed at the boundary and processed on its own; failures are
 * returned as `batchItemFailures` so only they are redelivered (and, after the queue's
 * maxReceiveCount, moved to the DLQ). A body that does not parse can never succeed: it is reported
 * as a failure too, so it ends in the DLQ for a person to look at rather than vanishing. Once a
 * record of a message group fails, the group's later records are returned unprocessed, as FIFO
 * ordering requires.
 */
export function createWorker(workerDeps: WorkerDeps): (event: SQSEvent) => Promise<SQSBatchResponse> {
  // Inputs stay warm for the life of this handler (a Lambda instance, or the local process).
  const deps: WorkerDeps = { ...workerDeps, warm: workerDeps.warm ?? new WarmInputs(workerDeps.store) };
  return async (event) => {
    const failed: string[] = [];
    const failedGroups = new Set<string>();
    for (const record of event.Records) {
      const group = record.attributes.MessageGroupId ?? "";
      if (failedGroups.has(group)) {
        failed.push(record.messageId);
        continue;
      }
      try {
        const parsed = translateJob.safeParse(JSON.parse(record.body));
        if (!parsed.success) throw new Error(`malformed translate job: ${parsed.error.issues[0]?.message}`);
        await translateTenant(deps, parsed.data);
      } catch (error) {
        deps.log.error("translate job failed", { messageId: record.messageId, group, ...describeError(error) });
        failed.push(record.messageId);
        failedGroups.add(group);
      }
    }
    return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
  };
}
