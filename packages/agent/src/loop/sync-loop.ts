import { SnapshotRejectedError, type StatusReport } from "@meshplane/core";
import { backoffMs, jitteredMs } from "../backoff";
import { ApiError } from "@meshplane/core/http-client";
import { type MemoryCell, runCycle } from "./cycle";
import type { SyncDeps } from "./deps";
import { newMemory } from "./memory";

/**
 * The agent's loop: poll, then run one cycle of the stages over what the poll brought (runCycle).
 * It owns the memory the cycles share, and the status report still to deliver. Fail static: a
 * snapshot that does not verify, an unreachable control plane or an expired signature applies
 * nothing and leaves the cluster as it was; the reason goes to the log, the metrics and the next
 * status report. The certificate and restart stages fail per mesh and never end a cycle.
 */
export class SyncLoop {
  private readonly cell: MemoryCell = { memory: newMemory() };
  private failures = 0;
  private pendingReport?: StatusReport;
  /** True once a cycle has completed (readiness). */
  synced = false;

  constructor(private readonly deps: SyncDeps) {}

  /** One cycle; returns how long to wait before the next. */
  async cycle(): Promise<number> {
    const { deps } = this;
    if (!deps.isLeader()) return this.interval();
    try {
      await this.flushReport();
      const { memory } = this.cell;
      const held = memory.desired && deps.state.appliedHash ? { generation: deps.state.appliedGeneration, hash: deps.state.appliedHash } : undefined;
      const started = performance.now();
      const answer = await deps.client.snapshot(held);
      deps.metrics.observePoll((performance.now() - started) / 1000);
      const resync = !answer.changed && memory.desired !== undefined && Date.now() - memory.applied.at >= deps.resyncIntervalMs;
      const report = await runCycle(deps, { ...(answer.changed && answer.jws ? { jws: answer.jws } : {}), resync }, this.cell);
      if (report) await this.report(report);
      this.failures = 0;
      this.synced = true;
      return this.interval();
    } catch (error) {
      return this.failed(error);
    }
  }

  private async failed(error: unknown): Promise<number> {
    const { deps } = this;
    this.failures++;
    if (error instanceof SnapshotRejectedError) {
      deps.metrics.syncError(error.reason);
      deps.log.error("snapshot rejected; nothing applied", { reason: error.reason, detail: error.message });
      this.pendingReport = { generation: deps.state.appliedGeneration, results: [], error: error.message };
      await this.flushReport().catch(() => undefined);
      return this.interval();
    }
    if (error instanceof ApiError && error.status === 401) {
      deps.metrics.syncError("unauthorized");
      deps.log.error(
        "the control plane rejected this agent's credential: issue a new bootstrap token (POST /v1/clusters/<name>/bootstrap-token), put it in the bootstrap Secret and delete the meshplane-agent-state Secret to register again",
        { detail: error.message },
      );
    } else {
      deps.metrics.syncError(error instanceof ApiError ? "control-plane" : "internal");
      deps.log.error("sync failed; the cluster is left as it was", { detail: (error as Error).message });
    }
    const backoff = backoffMs(this.failures, { baseMs: 1000, capMs: Math.max(60_000, deps.pollIntervalMs) });
    // Over its budget (429) the control plane says when to come back: never sooner.
    return error instanceof ApiError && error.retryAfterSeconds !== undefined ? Math.max(backoff, error.retryAfterSeconds * 1000) : backoff;
  }

  /** Sends a status report, or keeps it (the control plane is unreachable) to send first thing next cycle. */
  private async report(report: StatusReport): Promise<void> {
    this.pendingReport = report;
    await this.flushReport().catch((error: unknown) => this.deps.log.error("status report failed; will retry", { detail: (error as Error).message }));
  }

  private async flushReport(): Promise<void> {
    if (!this.pendingReport) return;
    await this.deps.client.status(this.pendingReport);
    this.pendingReport = undefined;
  }

  private interval(): number {
    return jitteredMs(this.deps.pollIntervalMs, this.deps.pollJitter);
  }
}
