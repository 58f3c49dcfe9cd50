import { type CertificateResult, type ObjectResult, canonicalJson } from "@meshplane/core";
import type { CycleContext, LoopMemory, Stage } from "../loop/cycle";

const count = (results: readonly ObjectResult[], state: ObjectResult["state"]) => results.filter((r) => r.state === state).length;
const failures = (results: readonly ObjectResult[]) => results.filter((r) => r.state === "failed");

/** One result per directive (and per directive the agent could not read), in mesh order. */
export function certificateResults(memory: LoopMemory): CertificateResult[] {
  const kept = memory.directives.flatMap((d) => {
    const mem = memory.meshes.get(d.mesh);
    return mem ? [mem.result] : [];
  });
  return [...kept, ...memory.refusedDirectives];
}

/**
 * Report: records a newly applied snapshot (generation and hash in the state Secret, so a restart
 * cannot roll back) and tells the control plane what changed — after a new snapshot, after a resync
 * that corrected drift, pruned, failed or no longer failed as last reported, and whenever a mesh's certificate result changed (then with
 * the object results last reported). Sending is the loop's `send`: a report that cannot be delivered
 * is kept and retried first thing next cycle.
 */
export const reportStage: Stage = async (ctx) => {
  const { deps, memory } = ctx;
  const results = [...(ctx.applied?.results ?? []), ...ctx.pruned];
  let news = false;
  if (ctx.snapshot) {
    await recordApplied(ctx, results);
    news = true;
  } else if (ctx.applyMode === "all") {
    const drifted = ctx.applied?.drifted ?? [];
    const pruned = count(results, "pruned");
    if (drifted.length > 0 || pruned > 0 || count(results, "failed") > 0) {
      deps.metrics.driftCorrections += drifted.length + pruned;
      deps.log.info("drift corrected", { generation: deps.state.appliedGeneration, restored: drifted, pruned });
      news = true;
    }
    // A failure the last report named and this resync no longer meets (the apiserver was restarting,
    // a CRD arrived late) is news too: otherwise the control plane would show it until the next generation.
    if (count(memory.results, "failed") > 0 && canonicalJson(failures(memory.results)) !== canonicalJson(failures(results))) news = true;
  }
  if (ctx.applyMode !== "none") memory.results = results;
  const certificates = certificateResults(memory);
  const json = canonicalJson(certificates);
  if (json !== memory.reportedCertificates) news = true;
  if (!news) return;
  memory.reportedCertificates = json;
  await ctx.send({ generation: deps.state.appliedGeneration, results: memory.results, certificates });
};

async function recordApplied(ctx: CycleContext, results: readonly ObjectResult[]): Promise<void> {
  const { deps } = ctx;
  const snapshot = ctx.snapshot as { generation: number; hash: string };
  deps.state.appliedGeneration = snapshot.generation;
  deps.state.appliedHash = snapshot.hash;
  await deps.stateStore.save(deps.state);
  deps.metrics.appliedGeneration = snapshot.generation;
  deps.log.info("snapshot applied", {
    generation: snapshot.generation,
    applyMs: Math.round(ctx.applyMs),
    applied: count(results, "applied"),
    pruned: count(results, "pruned"),
    failed: count(results, "failed"),
    certificates: certificateResults(ctx.memory).map((c) => `${c.mesh}:${c.state}`),
  });
}
