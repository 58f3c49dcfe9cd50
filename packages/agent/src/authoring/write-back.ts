import type { AuthoredView, Submission } from "@meshplane/core";
import type { AuthoringClient } from "../control-plane/client";
import { failedWith } from "../kube/failure";
import { type CustomResource, keyOf, objectPath } from "./objects";
import { mergePatchOf, nextStatus, submissionFor } from "./status";

/** What the authoring sync knows of a custom resource's last submission. */
export interface KnownSubmission {
  submission?: Submission;
  /** When the control plane last stored it (a status read begun before knows nothing of it). */
  storedAt?: number;
  /** Why it could not be sent yet (the control plane unreachable). */
  message?: string;
}

export interface StatusWriteBackDeps {
  client: Pick<AuthoringClient, "authoredResources">;
  kube: { mergePatch(path: string, body: unknown): Promise<void> };
  statusEveryMs: number;
  counters: { statusWrites: number };
  /** The custom resources held that are not being deleted. */
  held: () => CustomResource[];
  known: (uid: string) => KnownSubmission | undefined;
  /** Submits a resource again: the control plane no longer holds it (a tenant admin deleted it). */
  resubmit: (cr: CustomResource) => void;
  error: (msg: string, error: unknown, fields?: Record<string, unknown>) => void;
  now?: () => number;
}

/** The first read of statuses after a change, doubled while something is still in progress, up to statusEvery. */
const FOLLOW_UP_MS = 1000;
/** Status writes at once. */
const STATUS_WRITES = 8;

/**
 * The status write-back (docs/gitops.md#status-in-the-cluster): reads this cluster's authored
 * resources back (`GET /v1/agent/resources`, every page) every statusEvery and soon after a change —
 * again and again, doubling, while one is still in progress (translating, applying) — and writes each
 * custom resource's `/status` (a merge patch) when it says something new. A refusal, or a resource
 * not sent yet, is written without a read.
 */
export class StatusWriteBack {
  private timer?: NodeJS.Timeout;
  private followUpMs = FOLLOW_UP_MS;
  private reading = false;
  private readAgain = false;
  private stopped = false;

  constructor(private readonly deps: StatusWriteBackDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /** Reads in `delayMs` (instead of when it was due). */
  schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.read(), delayMs);
  }

  /** After submissions: read soon, and follow up quickly while they are in progress. */
  soon(): void {
    this.followUpMs = FOLLOW_UP_MS;
    this.schedule(FOLLOW_UP_MS);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Every authored resource of this cluster with its status, by source uid (all pages). */
  private async views(): Promise<Map<string, AuthoredView>> {
    const views = new Map<string, AuthoredView>();
    let cont: string | undefined;
    do {
      const page = await this.deps.client.authoredResources(cont);
      for (const view of page.items) views.set(view.source.uid, view);
      cont = page.continue;
    } while (cont);
    return views;
  }

  private async read(): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    const started = this.now();
    try {
      let views: Map<string, AuthoredView> | undefined;
      try {
        views = await this.views();
      } catch (error) {
        this.deps.error("reading statuses failed", error);
      }
      let inProgress = false;
      const held = this.deps.held();
      for (let i = 0; i < held.length && !this.stopped; i += STATUS_WRITES) {
        const written = await Promise.all(held.slice(i, i + STATUS_WRITES).map((cr) => this.write(cr, views, started)));
        inProgress ||= written.includes("in-progress");
      }
      this.followUpMs = inProgress ? Math.min(this.followUpMs * 2, this.deps.statusEveryMs) : this.deps.statusEveryMs;
    } finally {
      this.reading = false;
    }
    if (this.readAgain) {
      this.readAgain = false;
      return this.schedule(0);
    }
    this.schedule(this.followUpMs);
  }

  /**
   * Writes `cr`'s status when it changed. `views` undefined: the control plane was not read (a
   * refusal, or it is unreachable), so only what the agent knows by itself is written. A resource
   * stored before the read began (`readAt`) that the control plane no longer holds is submitted again.
   */
  async write(cr: CustomResource, views: Map<string, AuthoredView> | undefined, readAt?: number): Promise<"in-progress" | "settled"> {
    const known = this.deps.known(cr.metadata.uid);
    const view = views?.get(cr.metadata.uid);
    const submission = submissionFor(cr, known?.submission, view, known?.message);
    if (submission.state === "stored" && views === undefined) return "settled";
    if (submission.state === "stored" && view === undefined && readAt !== undefined && (known?.storedAt ?? 0) < readAt) {
      this.deps.resubmit(cr);
      return "in-progress";
    }
    // metav1.Time: seconds, as the API server writes every other timestamp.
    const next = nextStatus(cr, submission, view, new Date(this.now()).toISOString().replace(/\.\d+Z$/, "Z"));
    const conditions = (next ?? cr.status)?.conditions ?? [];
    const progress = !conditions.some((c) => (c.type === "Ready" && c.status === "True") || c.type === "Stalled");
    if (next === undefined) return progress ? "in-progress" : "settled";
    try {
      await this.deps.kube.mergePatch(objectPath(cr, "status"), { status: mergePatchOf(cr.status, next as unknown as Record<string, unknown>) });
      this.deps.counters.statusWrites++;
    } catch (error) {
      if (!failedWith(error, "not-found")) this.deps.error("writing a status failed", error, { resource: keyOf(cr) });
    }
    return progress ? "in-progress" : "settled";
  }
}
