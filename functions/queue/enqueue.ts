import type { Logger } from "../shared/logger";
import { describeError } from "../shared/logger";
import type { TranslateQueue } from "./translate-queue";

/**
 * Enqueues the translate job for a committed change. The change is already stored, so a failure here
 * must not fail the request: it is retried, then logged. A later change's job translates the latest
 * state anyway (jobs carry only a revision), and the tenant record keeps revision > translated
 * revision, which the pipeline's reconciler uses to catch up.
 */
export async function enqueueTranslate(queue: TranslateQueue, log: Logger, tenantId: string, revision: number | undefined): Promise<void> {
  if (revision === undefined) return;
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      await queue.enqueue({ tenantId, revision });
      return;
    } catch (error) {
      if (attempt === 3) log.error("translate job not enqueued", { revision, ...describeError(error) });
      else await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}
