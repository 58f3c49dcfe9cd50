import type { CertificateResult, ObjectResult, StatusReport } from "@meshplane/core";
import { certificateResults } from "../certificates/mesh-memory";
import { type ApplyOutcome, applyStage } from "../stages/apply";
import { certificateStage } from "../stages/certificates";
import type { ApplyMode } from "../stages/env";
import { countByState as count } from "../stages/object-results";
import { pruneStage } from "../stages/prune";
import { bindingStage } from "../stages/bindings";
import { reportStage } from "../stages/report";
import { restartStage } from "../stages/restarts";
import { verifyStage } from "../stages/verify";
import type { SyncDeps } from "./deps";
import type { LoopMemory } from "./memory";

/** What the poll brought a cycle. */
export interface Poll {
  /** The snapshot to verify; undefined when it was unchanged (or there is none). */
  jws?: string;
  /** Whether apply and prune redo everything although the snapshot did not change (drift correction). */
  resync: boolean;
}

/** The loop's memory, which runCycle replaces as the stages finish. */
export interface MemoryCell {
  memory: LoopMemory;
}

/**
 * One cycle over one desired set (docs/style.md#9-the-agent-runs-explicit-stages-over-one-desired-set):
 * verify → apply → prune → certificates → restarts → record → report. Each stage gets what it reads
 * as its input and returns what it produced; this function alone hands outputs on, and keeps what must
 * outlast the cycle in `cell` right after the stage that produced it, so a cycle that fails halfway
 * keeps what its finished stages did (as the cluster does). Returns the status report to send, if any.
 */
export async function runCycle(deps: SyncDeps, poll: Poll, cell: MemoryCell): Promise<StatusReport | undefined> {
  const now = deps.now?.() ?? new Date();
  const keep = (part: Partial<LoopMemory>) => {
    cell.memory = { ...cell.memory, ...part };
  };

  let newer: { generation: number; hash: string } | undefined;
  if (poll.jws !== undefined) {
    const verified = await verifyStage(deps, { jws: poll.jws, state: deps.state, holdsDesired: cell.memory.desired !== undefined, now });
    keep({ desired: verified.objects, directives: verified.directives, refusedDirectives: verified.refusedDirectives });
    newer = verified.newer;
  }
  const mode: ApplyMode = newer ? "changed" : poll.resync ? "all" : "none";

  let applied: ApplyOutcome | undefined;
  let pruned: ObjectResult[] = [];
  let applyMs = 0;
  const { desired } = cell.memory;
  if (mode !== "none" && desired !== undefined) {
    const apply = await applyStage(deps, { objects: desired, mode, applied: cell.memory.applied });
    keep({ applied: apply.applied });
    const prune = await pruneStage(deps, { objects: desired });
    // Waypoint bindings after the waypoints exist, and released after prune (docs/agent.md#waypoint-bindings).
    const bound = await bindingStage(deps, { objects: desired, failed: new Set(apply.outcome.failed.keys()) });
    applied = apply.outcome;
    pruned = [...prune.results, ...bound.results];
    applyMs = apply.ms + prune.ms + bound.ms;
  }

  const certified = await certificateStage(deps, { directives: cell.memory.directives, meshes: cell.memory.meshes, mode, now });
  keep({ meshes: certified.meshes });
  const restarted = await restartStage(deps, { meshes: certified.meshes, now });
  keep({ meshes: restarted.meshes });

  const { memory } = cell;
  const results = [...(applied?.results ?? []), ...pruned];
  const certificates = certificateResults(memory.directives, memory.meshes, memory.refusedDirectives);
  if (newer) await recordApplied(deps, newer, { applyMs, results, certificates });
  const report = reportStage(deps, {
    mode,
    newSnapshot: newer !== undefined,
    generation: deps.state.appliedGeneration,
    results,
    drifted: applied?.drifted ?? [],
    certificates,
    reported: memory.reported,
  });
  keep({ reported: report.reported });
  return report.report;
}

/**
 * Records a newly applied snapshot in the state Secret (generation and hash, so a restart cannot roll
 * back): the one place the loop writes its persisted state after registration.
 */
async function recordApplied(
  deps: SyncDeps,
  snapshot: { generation: number; hash: string },
  cycle: { applyMs: number; results: readonly ObjectResult[]; certificates: readonly CertificateResult[] },
): Promise<void> {
  deps.state.appliedGeneration = snapshot.generation;
  deps.state.appliedHash = snapshot.hash;
  await deps.stateStore.save(deps.state);
  deps.metrics.appliedGeneration = snapshot.generation;
  deps.log.info("snapshot applied", {
    generation: snapshot.generation,
    applyMs: Math.round(cycle.applyMs),
    applied: count(cycle.results, "applied"),
    pruned: count(cycle.results, "pruned"),
    failed: count(cycle.results, "failed"),
    certificates: cycle.certificates.map((c) => `${c.mesh}:${c.state}`),
  });
}
