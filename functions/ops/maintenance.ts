import type { TranslateQueue } from "../queue/translate-queue";
import type { Logger } from "../shared/logger";
import type { Store } from "../store/index";

export type MaintenanceTask = "reconcile" | "refresh";

/**
 * Scheduled upkeep of every tenant (the AWS stack runs it on EventBridge schedules):
 * - `reconcile`: a tenant whose revision is ahead of its translated revision lost its job (an
 *   enqueue failed after the change was stored); enqueue it again. SQS deduplication makes a job that
 *   is merely late harmless.
 * - `refresh`: enqueue a forced job per tenant, so snapshots whose signatures near expiry are
 *   re-signed even when nothing changed. Deduplicated per tenant and hour.
 * Returns how many jobs were enqueued.
 */
export async function runMaintenance(deps: { store: Store; queue: TranslateQueue; log: Logger; now: () => Date }, task: MaintenanceTask): Promise<number> {
  let enqueued = 0;
  for (const tenant of await deps.store.tenants.list()) {
    if (task === "reconcile" && tenant.revision > tenant.translatedRevision) {
      await deps.queue.enqueue({ tenantId: tenant.id, revision: tenant.revision });
      enqueued++;
    }
    if (task === "refresh" && tenant.revision > 0) {
      const hour = deps.now().toISOString().slice(0, 13);
      await deps.queue.enqueue({ tenantId: tenant.id, revision: tenant.revision, force: true }, `${tenant.id}-refresh-${hour}`);
      enqueued++;
    }
  }
  deps.log.info("maintenance done", { task, enqueued });
  return enqueued;
}
