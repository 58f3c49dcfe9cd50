import { type ResourceStatus, type UserKind, canonicalJson, resourceKeyOf } from "@meshplane/core/base";
import { translate } from "@meshplane/core/translate";
import type { TranslateJob } from "../queue/translate-queue";
import { type Logger, describeError } from "../shared/logger";
import { NotFoundError } from "../shared/errors";
import { completeInput, loadTranslateInput } from "./input";
import { type PublishDeps, publishCluster } from "./publish";
import { withClusterStatus } from "./statuses";
import { trustInput } from "../trust/ca-record";
import { advanceRotations, reconcileAuthorities } from "../trust/rotation";
import type { AuthorityDeps } from "../trust/authority";
import type { WarmInputs } from "./warm-input";
import type { PushNotifier } from "../push/hub";

export interface WorkerDeps extends PublishDeps {
  log: Logger;
  now: () => Date;
  /** Makes and seals VirtualMesh CAs (needs only to seal keys, never to open them). */
  authority: AuthorityDeps;
  /** Tenants' inputs kept between jobs (warm-input.ts); without it every job loads the tenant whole. */
  warm?: WarmInputs;
  /** Tells connected agents that their cluster has a new generation (docs/push.md); best effort. */
  push?: PushNotifier;
}

export type JobOutcome = "translated" | "skipped";

/** Runs `fn` over `items` with at most `limit` in flight. */
async function inParallel<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++] as T);
  });
  await Promise.all(lanes);
}

/**
 * One translate job. A job whose revision is already translated is a no-op; otherwise the tenant's
 * latest state is translated (jobs carry no data, so a late job never applies stale input), each
 * cluster whose content changed gets the next generation, then statuses are written and the revision
 * marked translated. Before translating, the VirtualMeshes' CAs are made to match them, and root
 * rotations whose phase every member has reached move on. Every step is idempotent: a crash anywhere re-runs cleanly on redelivery, and an
 * unchanged cluster never gets a new generation.
 */
export async function translateTenant(deps: WorkerDeps, job: TranslateJob): Promise<JobOutcome> {
  const { store } = deps;
  let tenant;
  try {
    tenant = await store.tenants.get(job.tenantId);
  } catch (error) {
    if (error instanceof NotFoundError) return "skipped";
    throw error;
  }
  if (tenant.translatedRevision >= job.revision && !job.force) return "skipped";
  const loaded = deps.warm ? await deps.warm.load(tenant) : undefined;
  const stored = loaded?.input ?? (await loadTranslateInput(store, job.tenantId));
  const now = deps.now();
  // The CAs are made to match the VirtualMeshes first (the plan only reads them).
  const { input, reports, cas } = await completeInput(store, stored, (virtualMeshes) => reconcileAuthorities(deps, job.tenantId, virtualMeshes, now));
  // A warm tenant's translation redoes only what changed since its last job (core Translator).
  const translator = loaded?.translator;
  const run = (i: typeof input) => (translator ? translator.translate(i) : translate(i));
  let output = run(input);
  // A rotation phase that ends changes the directives: translate once more with the next phase.
  if (await advanceRotations(deps, job.tenantId, input, output, cas, now)) {
    input.trust = trustInput(cas);
    output = run(input);
  }

  const heads = await store.snapshots.heads(job.tenantId, input.clusters);
  const generations = new Map<string, number>();
  await inParallel(Object.keys(output.clusters), 8, async (cluster) => {
    const generation = await publishCluster(deps, job.tenantId, cluster, output.clusters[cluster] as never, heads.get(cluster), now);
    generations.set(cluster, generation);
    // A push only says "fetch": an agent that misses it finds the generation at its next poll.
    if (deps.push && generation !== (heads.get(cluster)?.snapshot?.generation ?? 0)) {
      await Promise.resolve(deps.push.published(job.tenantId, cluster, generation)).catch((error: unknown) =>
        deps.log.error("push failed", { cluster, ...describeError(error) }),
      );
    }
  });

  const statuses = withClusterStatus(output.statuses, output.clusters, generations, reports);
  const resources = [...input.virtualMeshes, ...input.trafficPolicies, ...input.accessPolicies];
  let written = 0;
  await inParallel(resources, 16, async (resource) => {
    const status = statuses[resourceKeyOf(resource)] as ResourceStatus | undefined;
    if (!status || canonicalJson(status) === canonicalJson(resource.status)) return;
    if (await store.resources.writeStatus(job.tenantId, resource.kind as UserKind, resource.metadata.name, resource.metadata.generation, status)) {
      written++;
      deps.warm?.statusWritten(job.tenantId, resource.kind as UserKind, resource.metadata.name, status);
    }
  });
  await store.tenants.markTranslated(job.tenantId, tenant.revision);
  deps.log.info("tenant translated", {
    tenant: job.tenantId,
    revision: tenant.revision,
    clusters: input.clusters.length,
    ...(loaded
      ? {
          input: loaded.stats.mode,
          ...(loaded.stats.reason ? { fullLoadReason: loaded.stats.reason } : {}),
          itemsRead: loaded.stats.itemsRead,
          itemsHeld: loaded.stats.itemsHeld,
        }
      : {}),
    published: [...generations].filter(([c, g]) => g !== (heads.get(c)?.snapshot?.generation ?? 0)).length,
    statusesWritten: written,
  });
  return "translated";
}
