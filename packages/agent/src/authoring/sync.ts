import { MAX_AUTHORED_BATCH, MAX_AUTHORED_PER_CLUSTER, type SubmittedResource, crRef } from "@meshplane/core";
import { ApiError } from "@meshplane/core/http-client";
import { backoffMs } from "../backoff";
import type { AuthoringClient } from "../control-plane/client";
import { failedWith } from "../kube/failure";
import type { WatchSource } from "../kube/informer";
import type { Logger } from "../observability/log";
import { type CustomResource, finalizerPatch, hasFinalizer, keyOf, objectPath, refOf, revisionOf, submissionOf } from "./objects";
import { CoalescingQueue, type Taken } from "./queue";
import { type KnownSubmission, StatusWriteBack } from "./write-back";
import { CustomResourceWatch } from "./watch";

/** What the authoring sync counts, for the agent's /metrics (`meshplane_agent_authoring_*`). */
export interface AuthoringCounters {
  submitted: number;
  refused: number;
  deleted: number;
  pending: number;
  statusWrites: number;
  errors: number;
}

export interface AuthoringSyncDeps {
  kube: WatchSource & { mergePatch(path: string, body: unknown): Promise<void> };
  client: AuthoringClient;
  namespaces: readonly string[];
  syncEveryMs: number;
  statusEveryMs: number;
  log: Logger;
  counters: AuthoringCounters;
  now?: () => number;
  /** How long a change waits for others to share its request (200 ms). */
  windowMs?: number;
  /** The least time between two submissions of one custom resource (1 s). */
  minGapMs?: number;
}

/** What the agent knows of one custom resource (by uid). */
interface Known extends KnownSubmission {
  /** The revision (revisionOf) last queued or sent, and the one the control plane last answered. */
  queued?: string;
  answered?: string;
  /** The protocol cannot carry it: never sent, never given the finalizer. */
  invalid?: boolean;
  /** Deleted in the control plane: its disappearance from the cluster needs nothing more. */
  deleted?: boolean;
}

/**
 * What is to be sent of one custom resource: a submission, or a deletion (then, with `finalize`,
 * the finalizer removed). One queue for both, so the latest wins and one key is never in two
 * requests at once: a deletion never overtakes the submission of the same resource.
 */
type Submit = { op: "submit"; cr: CustomResource; revision: string; item: SubmittedResource };
type Delete = { op: "delete"; cr: CustomResource; finalize: boolean };
type Op = Submit | Delete;
const isDelete = (op: Op): op is Delete => op.op === "delete";
const isSubmit = (op: Op): op is Submit => op.op === "submit";

/** At most this many requests to the control plane at once (submits and deletes). */
const MAX_IN_FLIGHT = 2;

/**
 * A refusal's field as the custom resource's own (`spec.…`, `metadata.name`): the control plane names
 * it within the request (`items[3].document.spec.…`), which means nothing to whoever reads the status.
 */
const fieldText = (e: { path: string; message: string }) => `${e.path.replace(/^items\[\d+\]\.document\.?/, "") || "(the resource)"}: ${e.message}`;

const retryable = (error: unknown) => !(error instanceof ApiError) || error.status === 0 || error.status === 429 || error.status >= 500;
const messageOf = (error: unknown) => (error as Error)?.message ?? String(error);

/**
 * The agent's authoring sync (docs/gitops.md#the-agent), on the leader only: watches the meshplane
 * custom resources, adds its finalizer to each, submits new generations and label or annotation
 * changes coalesced (CoalescingQueue: the latest form wins, batches of at most MAX_AUTHORED_BATCH,
 * MAX_IN_FLIGHT requests at once, backoff on 429, 5xx or no answer), deletes in the control plane
 * then removes the finalizer, sends the whole list once listed and every syncEvery, and writes each
 * custom resource's `/status` when it changes. Nothing here throws: failures are logged, counted and
 * retried.
 */
export class AuthoringSync {
  private readonly objects = new Map<string, CustomResource>();
  private readonly known = new Map<string, Known>();
  private readonly queue: CoalescingQueue<Op>;
  private readonly finalizing = new Set<string>();
  private readonly watch: CustomResourceWatch;
  private inFlight = 0;
  private syncing = false;
  private failures = 0;
  private pauseUntil = 0;
  private pumpTimer?: NodeJS.Timeout;
  private syncTimer?: NodeJS.Timeout;
  private readonly statuses: StatusWriteBack;
  private stopped = false;

  constructor(private readonly deps: AuthoringSyncDeps) {
    this.queue = new CoalescingQueue({ windowMs: deps.windowMs ?? 200, minGapMs: deps.minGapMs ?? 1000 });
    this.watch = new CustomResourceWatch({
      kube: deps.kube,
      namespaces: deps.namespaces,
      onChange: (cr) => this.changed(cr),
      onGone: (cr) => this.gone(cr),
      onError: (what, error) => this.error(`${what} failed`, error),
      onListed: () => this.scheduleSync(0),
    });
    this.statuses = new StatusWriteBack({
      ...deps,
      held: () => [...this.objects.values()].filter((cr) => cr.metadata.deletionTimestamp === undefined),
      known: (uid) => this.known.get(uid),
      resubmit: (cr) => {
        const known = this.known.get(cr.metadata.uid);
        if (known) {
          known.queued = undefined;
          known.submission = undefined;
        }
        this.changed(cr);
      },
      error: (msg, error, fields) => this.error(msg, error, fields),
    });
  }

  async start(): Promise<void> {
    await this.watch.start();
    this.statuses.schedule(this.deps.statusEveryMs);
  }

  stop(): void {
    this.stopped = true;
    this.watch.stop();
    this.statuses.stop();
    for (const timer of [this.pumpTimer, this.syncTimer]) clearTimeout(timer);
    this.queue.clear();
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private error(msg: string, error: unknown, fields: Record<string, unknown> = {}): void {
    this.deps.counters.errors++;
    this.deps.log.error(`authoring: ${msg}`, { ...fields, detail: messageOf(error) });
  }

  private knownOf(uid: string): Known {
    let known = this.known.get(uid);
    if (!known) {
      known = {};
      this.known.set(uid, known);
    }
    return known;
  }

  /** An object added or changed in the cluster. */
  private changed(cr: CustomResource): void {
    const key = keyOf(cr);
    const { uid } = cr.metadata;
    this.objects.set(key, cr);
    const queued = this.queue.peek(key);
    if (cr.metadata.deletionTimestamp !== undefined) {
      if (hasFinalizer(cr) && !(queued?.op === "delete" && queued.cr.metadata.uid === uid))
        this.queue.set(key, { op: "delete", cr, finalize: true }, this.now());
      else if (queued?.op === "submit" && queued.cr.metadata.uid === uid) this.queue.delete(key);
      return this.pump();
    }
    const known = this.knownOf(uid);
    const revision = revisionOf(cr);
    if (known.queued !== revision) {
      known.queued = revision;
      const item = submissionOf(cr);
      if (Array.isArray(item)) {
        // The protocol cannot carry it (its name is no DNS label): it is never sent, and says why.
        known.invalid = true;
        known.answered = revision;
        known.submission = { generation: cr.metadata.generation, state: "refused", reason: "Invalid", errors: item.map((e) => `${e.path}: ${e.message}`) };
        void this.statuses.write(cr, undefined);
        return;
      }
      this.queue.set(key, { op: "submit", cr, revision, item }, this.now());
      this.pump();
    }
    if (!known.invalid && !hasFinalizer(cr)) void this.addFinalizer(cr);
  }

  /** An object gone from the cluster: a finalizer removed by hand is still deleted in the control plane. */
  private gone(cr: CustomResource): void {
    const key = keyOf(cr);
    const { uid } = cr.metadata;
    if (this.objects.get(key)?.metadata.uid === uid) this.objects.delete(key);
    const queued = this.queue.peek(key);
    if (queued?.op === "submit" && queued.cr.metadata.uid === uid) this.queue.delete(key);
    const known = this.known.get(uid);
    this.known.delete(uid);
    if (known?.answered !== undefined && !known.deleted && !known.invalid) {
      this.queue.set(key, { op: "delete", cr, finalize: false }, this.now());
      this.pump();
    }
  }

  private async addFinalizer(cr: CustomResource): Promise<void> {
    if (this.finalizing.has(cr.metadata.uid)) return;
    this.finalizing.add(cr.metadata.uid);
    try {
      await this.deps.kube.mergePatch(objectPath(cr), finalizerPatch(cr, true));
    } catch (error) {
      // A newer version (409) comes through the watch, and is looked at again; a gone one needs nothing.
      if (!failedWith(error, "conflict") && !failedWith(error, "not-found")) this.error("adding the finalizer failed", error, { resource: keyOf(cr) });
    } finally {
      this.finalizing.delete(cr.metadata.uid);
    }
  }

  /** Sends what is ready, up to MAX_IN_FLIGHT requests, unless backing off; then waits for the next. */
  private pump(): void {
    if (this.stopped) return;
    clearTimeout(this.pumpTimer);
    const now = this.now();
    if (now < this.pauseUntil) {
      this.pumpTimer = setTimeout(() => this.pump(), this.pauseUntil - now);
      return;
    }
    while (this.inFlight < MAX_IN_FLIGHT) {
      const deletes = this.queue.take(MAX_AUTHORED_BATCH, now, isDelete) as Taken<Delete>[];
      const submits = deletes.length > 0 || this.syncing ? [] : (this.queue.take(MAX_AUTHORED_BATCH, now, isSubmit) as Taken<Submit>[]);
      if (deletes.length === 0 && submits.length === 0) break;
      this.inFlight++;
      const sent = deletes.length > 0 ? this.sendDeletes(deletes) : this.sendSubmits(submits);
      void sent.finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
    this.deps.counters.pending = this.queue.size;
    const next = this.queue.nextReadyAt();
    if (next !== undefined) this.pumpTimer = setTimeout(() => this.pump(), Math.max(0, next - now));
  }

  /** A request the control plane could not take now: every sender waits (backoff with full jitter, never before Retry-After). */
  private backOff(error: unknown): number {
    this.failures++;
    const wait = Math.max(backoffMs(this.failures, { baseMs: 1000, capMs: 60_000 }), ((error as ApiError).retryAfterSeconds ?? 0) * 1000);
    this.pauseUntil = Math.max(this.pauseUntil, this.now() + wait);
    return this.pauseUntil;
  }

  private async sendSubmits(batch: Taken<Submit>[]): Promise<void> {
    let results;
    try {
      results = (await this.deps.client.submitResources({ items: batch.map((b) => b.value.item) })).results;
      this.failures = 0;
    } catch (error) {
      for (const { key } of batch) this.queue.done(key);
      return this.submitFailed(batch, error);
    }
    const now = this.now();
    batch.forEach(({ key, value }, i) => {
      this.queue.done(key);
      const result = results[i];
      if (result === undefined) return;
      const { cr, revision } = value;
      const known = this.knownOf(cr.metadata.uid);
      known.answered = revision;
      known.message = undefined;
      this.deps.counters.submitted++;
      const generation = cr.metadata.generation;
      if (result.outcome === "stored") {
        known.submission = { generation, state: "stored", name: result.name, storedGeneration: result.generation };
        known.storedAt = now;
        return;
      }
      this.deps.counters.refused++;
      known.submission = { generation, state: "refused", reason: result.reason, errors: result.errors.map(fieldText) };
      // A refusal needs no read: its status is known now.
      const current = this.objects.get(key);
      if (current?.metadata.uid === cr.metadata.uid) void this.statuses.write(current, undefined);
    });
    this.statuses.soon();
  }

  private submitFailed(batch: Taken<Submit>[], error: unknown): void {
    if (retryable(error)) {
      const at = this.backOff(error);
      this.error("submitting failed; will retry", error, { resources: batch.length });
      for (const { key, value } of batch) {
        this.knownOf(value.cr.metadata.uid).message = `not sent yet: ${messageOf(error)}`;
        this.queue.retry(key, value, at);
      }
      return;
    }
    if (batch.length > 1) {
      // Refused as a whole (its size, one item the control plane cannot read): each goes alone.
      for (const { key, value } of batch) this.queue.retry(key, value, this.now(), true);
      return;
    }
    this.error("the control plane refused a submission", error, { resource: batch[0]?.key });
    for (const { key, value } of batch) {
      const known = this.knownOf(value.cr.metadata.uid);
      known.answered = value.revision;
      known.submission = { generation: value.cr.metadata.generation, state: "refused", reason: "Invalid", errors: [messageOf(error)] };
      const current = this.objects.get(key);
      if (current?.metadata.uid === value.cr.metadata.uid) void this.statuses.write(current, undefined);
    }
  }

  private async sendDeletes(batch: Taken<Delete>[]): Promise<void> {
    let results;
    try {
      results = (await this.deps.client.deleteResources({ items: batch.map((b) => refOf(b.value.cr)) })).results;
      this.failures = 0;
    } catch (error) {
      // Unreachable, or refused: the finalizer stays, so nothing is orphaned; tried again later.
      const at = retryable(error) ? this.backOff(error) : this.now() + this.deps.syncEveryMs;
      this.error("deleting failed; will retry", error, { resources: batch.length });
      for (const { key, value } of batch) {
        this.queue.done(key);
        this.queue.retry(key, value, at);
      }
      return;
    }
    await Promise.all(
      batch.map(async ({ key, value }, i) => {
        this.queue.done(key);
        if (results[i]?.outcome === "deleted") this.deps.counters.deleted++;
        const known = this.known.get(value.cr.metadata.uid);
        if (known) known.deleted = true;
        const current = this.objects.get(key);
        if (!value.finalize || current?.metadata.uid !== value.cr.metadata.uid || !hasFinalizer(current)) return;
        try {
          await this.deps.kube.mergePatch(objectPath(current), finalizerPatch(current, false));
        } catch (error) {
          // 409: the watch brings the newer version, which is deleted (absent) and finalized again.
          if (!failedWith(error, "conflict") && !failedWith(error, "not-found")) this.error("removing the finalizer failed", error, { resource: key });
        }
      }),
    );
  }

  private scheduleSync(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => void this.sync(), delayMs);
  }

  /**
   * Sends every custom resource held, once the watch is whole: the control plane deletes this
   * cluster's others. Never while a submission waits or is in flight (its resource would read as
   * gone), nor before the first full list.
   */
  private async sync(): Promise<void> {
    if (!this.watch.whole() || !this.queue.idle() || this.now() < this.pauseUntil) return this.scheduleSync(1000);
    const present = [...this.objects.values()].map(refOf).filter((ref) => crRef.safeParse(ref).success);
    if (present.length > MAX_AUTHORED_PER_CLUSTER) {
      this.error("not synced", new Error(`${present.length} custom resources, more than the ${MAX_AUTHORED_PER_CLUSTER} a cluster may hold`));
      return this.scheduleSync(this.deps.syncEveryMs);
    }
    this.syncing = true;
    try {
      const { deleted } = await this.deps.client.syncResources({ present });
      this.deps.counters.deleted += deleted;
      this.failures = 0;
      this.scheduleSync(this.deps.syncEveryMs);
      this.resubmitRefused();
      // What an admin deleted through the API is submitted again (the status read finds it missing).
      this.statuses.schedule(0);
    } catch (error) {
      this.error("sync failed; will retry", error);
      this.scheduleSync(retryable(error) ? this.backOff(error) - this.now() : this.deps.syncEveryMs);
    } finally {
      this.syncing = false;
      this.pump();
    }
  }

  /** Refusals are looked at again each sync: a grant widened since, or a name another resource no longer holds, lets them in. */
  private resubmitRefused(): void {
    for (const cr of this.objects.values()) {
      const known = this.known.get(cr.metadata.uid);
      if (known?.submission?.state !== "refused" || known.invalid || cr.metadata.deletionTimestamp !== undefined) continue;
      known.queued = undefined;
      this.changed(cr);
    }
  }
}
