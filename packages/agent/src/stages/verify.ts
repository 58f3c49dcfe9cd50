import { type KubeObject, canonicalJson, objectKey, objectKeyOf, snapshotAudience, verifySnapshot } from "@meshplane/core";
import { applyObjects, pruneUndesired } from "./apply";
import type { Stage } from "../loop/cycle";
import { parseDirectives } from "../certificates/directive";

/**
 * Verify: the snapshot the poll brought must verify (signature by a pinned key; audience: this
 * tenant, cluster and the incarnation the agent registered with; no rollback, not expired, hash) or
 * the cycle ends with SnapshotRejectedError and nothing is applied (fail static). A verified snapshot
 * becomes the desired set and the certificate directives; when it is newer than the one applied,
 * apply and prune work on the objects changed since.
 */
export const verifyStage: Stage = async (ctx) => {
  if (ctx.jws === undefined) return;
  const { deps, memory } = ctx;
  const payload = await verifySnapshot(ctx.jws, {
    trustedKeys: deps.trustedKeys,
    audience: snapshotAudience(deps.scope.tenant, deps.scope.cluster, deps.state.incarnation),
    lastGeneration: deps.state.appliedGeneration,
    now: ctx.now,
  });
  const same = payload.generation === deps.state.appliedGeneration && payload.hash === deps.state.appliedHash && memory.desired !== undefined;
  memory.desired = payload.objects as KubeObject[];
  const { directives, refused } = parseDirectives(payload.certificates);
  memory.directives = directives;
  memory.refusedDirectives = refused;
  if (same) return;
  ctx.snapshot = { generation: payload.generation, hash: payload.hash };
  ctx.applyMode = "changed";
};

/**
 * Apply: server-side apply of the desired set in kind order (applyObjects) — on a new snapshot only
 * the objects whose content changed since they were last applied, on a resync all of them. Remembers
 * what was applied so the next snapshot and the next drift check can compare.
 */
export const applyStage: Stage = async (ctx) => {
  const { deps, memory } = ctx;
  if (ctx.applyMode === "none" || memory.desired === undefined) return;
  const started = performance.now();
  const json = new Map<string, string>(memory.desired.map((o) => [objectKeyOf(o), canonicalJson(o)]));
  const unchanged = ctx.applyMode === "changed" ? new Set([...json].filter(([id, j]) => memory.appliedJson.get(id) === j).map(([id]) => id)) : new Set<string>();
  const outcome = await applyObjects(deps.kube, deps.scope, memory.desired, memory.versions, unchanged);
  const failed = new Set<string>(outcome.results.filter((r) => r.state === "failed").map((r) => objectKey(r.kind, r.namespace, r.name)));
  // A failed object is not remembered as applied, so the next snapshot tries it again.
  memory.appliedJson = new Map([...json].filter(([id]) => !failed.has(id)));
  memory.versions = outcome.versions;
  memory.lastApplyAt = Date.now();
  deps.metrics.managedObjects = outcome.versions.size;
  ctx.applied = outcome;
  ctx.applyMs += performance.now() - started;
};

/** Prune: deletes what this agent owns (all three owner labels) that is no longer desired, whenever apply ran. */
export const pruneStage: Stage = async (ctx) => {
  const { deps, memory } = ctx;
  if (ctx.applyMode === "none" || memory.desired === undefined) return;
  const started = performance.now();
  ctx.pruned = await pruneUndesired(deps.kube, deps.scope, new Set(memory.desired.map(objectKeyOf)));
  ctx.applyMs += performance.now() - started;
};
