import { type JWK } from "jose";
import { type KubeObject, type StatusReport, SnapshotRejectedError, canonicalJson, snapshotAudience, verifySnapshot } from "@meshplane/core";
import { type ApplyOutcome, type Scope, applyDesired, identity } from "./apply";
import { backoffMs, jitteredMs } from "./backoff";
import { type ControlPlaneClient, ControlPlaneError } from "./client";
import type { Kube } from "./kube";
import type { Logger } from "./log";
import type { Metrics } from "./metrics";
import type { AgentState, StateStore } from "./state";

export interface SyncDeps {
  client: ControlPlaneClient;
  kube: Kube;
  stateStore: StateStore;
  state: AgentState;
  scope: Scope;
  trustedKeys: JWK[];
  metrics: Metrics;
  log: Logger;
  pollIntervalMs: number;
  pollJitter: number;
  resyncIntervalMs: number;
  isLeader: () => boolean;
  now?: () => Date;
}

/**
 * The agent's loop over one desired set (STYLE.md 9): poll → verify → apply in kind order → prune by
 * owner label → report per-object results. Fail static: a snapshot that does not verify, an
 * unreachable control plane or an expired signature applies nothing and leaves the cluster as it
 * was; the reason goes to the log, the metrics and the next status report.
 */
export class SyncLoop {
  private desired?: KubeObject[];
  private versions = new Map<string, string>();
  /** Canonical JSON of each object as last applied, so a new snapshot re-applies only what changed. */
  private appliedJson = new Map<string, string>();
  private lastApplyAt = 0;
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
      const held = this.desired && deps.state.appliedHash ? { generation: deps.state.appliedGeneration, hash: deps.state.appliedHash } : undefined;
      const started = performance.now();
      const answer = await deps.client.snapshot(held);
      deps.metrics.observePoll((performance.now() - started) / 1000);
      if (answer.changed && answer.jws) await this.receive(answer.jws);
      else if (!answer.changed && Date.now() - this.lastApplyAt >= deps.resyncIntervalMs) await this.resync();
      this.failures = 0;
      this.synced = true;
      return this.interval();
    } catch (error) {
      return this.failed(error);
    }
  }

  private async receive(jws: string): Promise<void> {
    const { deps } = this;
    const payload = await verifySnapshot(jws, {
      trustedKeys: deps.trustedKeys,
      audience: snapshotAudience(deps.scope.tenant, deps.scope.cluster),
      lastGeneration: deps.state.appliedGeneration,
      now: (deps.now ?? (() => new Date()))(),
    });
    const same = payload.generation === deps.state.appliedGeneration && payload.hash === deps.state.appliedHash && this.desired;
    this.desired = payload.objects as KubeObject[];
    if (same) return;
    const started = performance.now();
    const outcome = await this.apply(true);
    const applyMs = Math.round(performance.now() - started);
    deps.state.appliedGeneration = payload.generation;
    deps.state.appliedHash = payload.hash;
    await deps.stateStore.save(deps.state);
    deps.metrics.appliedGeneration = payload.generation;
    deps.log.info("snapshot applied", { generation: payload.generation, applyMs, applied: count(outcome, "applied"), pruned: count(outcome, "pruned"), failed: count(outcome, "failed") });
    await this.report({ generation: payload.generation, results: outcome.results });
  }

  private async resync(): Promise<void> {
    if (!this.desired) return;
    const outcome = await this.apply();
    const pruned = count(outcome, "pruned");
    if (outcome.drifted.length > 0 || pruned > 0 || count(outcome, "failed") > 0) {
      this.deps.metrics.driftCorrections += outcome.drifted.length + pruned;
      this.deps.log.info("drift corrected", { generation: this.deps.state.appliedGeneration, restored: outcome.drifted, pruned });
      await this.report({ generation: this.deps.state.appliedGeneration, results: outcome.results });
    }
  }

  /** Applies the desired set; `onlyChanged` skips objects identical to what was last applied. */
  private async apply(onlyChanged = false): Promise<ApplyOutcome> {
    const desired = this.desired ?? [];
    const json = new Map(desired.map((o) => [identity(o), canonicalJson(o)]));
    const unchanged = onlyChanged ? new Set([...json].filter(([id, j]) => this.appliedJson.get(id) === j).map(([id]) => id)) : new Set<string>();
    const outcome = await applyDesired(this.deps.kube, this.deps.scope, desired, this.versions, unchanged);
    const failed = new Set(outcome.results.filter((r) => r.state === "failed").map((r) => identity({ kind: r.kind, metadata: { namespace: r.namespace, name: r.name } })));
    this.appliedJson = new Map([...json].filter(([id]) => !failed.has(id)));
    this.versions = outcome.versions;
    this.lastApplyAt = Date.now();
    this.deps.metrics.managedObjects = outcome.versions.size;
    return outcome;
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
    if (error instanceof ControlPlaneError && error.status === 401) {
      deps.metrics.syncError("unauthorized");
      deps.log.error("the control plane rejected this agent's credential: issue a new bootstrap token (POST /v1/clusters/<name>/bootstrap-token), put it in the bootstrap Secret and delete the meshplane-agent-state Secret to register again", { detail: error.message });
    } else {
      deps.metrics.syncError(error instanceof ControlPlaneError ? "control-plane" : "internal");
      deps.log.error("sync failed; the cluster is left as it was", { detail: (error as Error).message });
    }
    return backoffMs(this.failures, { baseMs: 1000, capMs: Math.max(60_000, deps.pollIntervalMs) });
  }

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

const count = (o: ApplyOutcome, state: "applied" | "pruned" | "failed") => o.results.filter((r) => r.state === state).length;
