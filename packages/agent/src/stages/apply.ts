import { type KubeObject, type ObjectResult, canonicalJson, groupOf, kindRank, objectKeyOf } from "@meshplane/core";
import { failureOf } from "../kube/failure";
import type { KubeClient, ObjectRef } from "../kube/kube";
import { type Scope, ownedBy } from "../ownership";
import type { StageEnv } from "./env";
import { type ObjectError, failedResult } from "./object-results";

/** What the loop remembers of the objects it applied, for the next snapshot and the next drift check. */
export interface AppliedObjects {
  /** resourceVersion of every applied object, for drift detection. */
  versions: ReadonlyMap<string, string>;
  /** Canonical JSON of each object as last applied, so a new snapshot re-applies only what changed. */
  json: ReadonlyMap<string, string>;
  /** When apply last ran (ms since the epoch): the resync interval counts from it. */
  at: number;
}

export interface ApplyOutcome {
  results: ObjectResult[];
  /** Objects whose stored version changed since our last apply: someone edited or deleted them. */
  drifted: string[];
  /** resourceVersion of every object after this apply, for the next drift check. */
  versions: Map<string, string>;
  /** Why each object that was not applied failed, by objectKey. */
  failed: ReadonlyMap<string, ObjectError>;
}

export interface ApplyInput {
  /** The desired set of the snapshot verified last. */
  objects: readonly KubeObject[];
  /** `changed`: a new snapshot, only objects whose content changed are sent; `all`: a resync. */
  mode: "changed" | "all";
  applied: AppliedObjects;
}

export interface ApplyOutput {
  outcome: ApplyOutcome;
  /** What the loop remembers as applied from now on. */
  applied: AppliedObjects;
  /** Time spent, for the log. */
  ms: number;
}

/**
 * The apply stage: server-side apply of the desired set in kind order (applyObjects) — on a new
 * snapshot only the objects whose content changed since they were last applied, on a resync all of
 * them. Returns what to remember as applied; a failed object is not remembered, so the next snapshot
 * tries it again whatever its error.
 */
export async function applyStage(env: Pick<StageEnv, "kube" | "scope" | "metrics">, input: ApplyInput): Promise<ApplyOutput> {
  const started = performance.now();
  const json = new Map<string, string>(input.objects.map((o) => [objectKeyOf(o), canonicalJson(o)]));
  const unchanged = input.mode === "changed" ? new Set([...json].filter(([id, j]) => input.applied.json.get(id) === j).map(([id]) => id)) : new Set<string>();
  const outcome = await applyObjects(env.kube, env.scope, input.objects, input.applied.versions, unchanged);
  const applied: AppliedObjects = { versions: outcome.versions, json: new Map([...json].filter(([id]) => !outcome.failed.has(id))), at: Date.now() };
  env.metrics.managedObjects = outcome.versions.size;
  return { outcome, applied, ms: performance.now() - started };
}

/** Server-side applies in flight at once within one kind: enough to hide the apiserver's round trips. */
export const APPLY_CONCURRENCY = 16;

/**
 * Applies the desired set: server-side apply in kind order with our field manager (docs/style.md#9-the-agent-runs-explicit-stages-over-one-desired-set).
 * Kinds go one after another (a kind's objects may name objects of an earlier kind); within a kind up
 * to APPLY_CONCURRENCY applies are in flight. An object in `unchanged` that was applied before
 * (`previous` knows its version) is not sent again; the next resync re-checks it. Errors are collected
 * per object, typed (ObjectError), never fail-fast; results come in kind order, then the snapshot's
 * order. A desired object the agent does not own (ownedBy) is refused (the snapshot is signed, so this
 * is a control-plane bug, but the cluster is ours to guard). Pruning is a separate stage.
 */
export async function applyObjects(
  kube: KubeClient,
  scope: Scope,
  desired: readonly KubeObject[],
  previous: ReadonlyMap<string, string>,
  unchanged: ReadonlySet<string> = new Set(),
  concurrency = APPLY_CONCURRENCY,
): Promise<ApplyOutcome> {
  const ordered = [...desired].sort((a, b) => kindRank(a.apiVersion, a.kind) - kindRank(b.apiVersion, b.kind));
  const results: ObjectResult[] = Array.from({ length: ordered.length });
  const outcomes: ({ id: string; version: string; drifted: boolean } | undefined)[] = Array.from({ length: ordered.length });
  const failed = new Map<string, ObjectError>();
  const fail = (i: number, id: string, ref: ObjectRef, error: ObjectError) => {
    failed.set(id, error);
    results[i] = failedResult(ref, error);
  };
  const applyOne = async (i: number): Promise<void> => {
    const obj = ordered[i] as KubeObject;
    const ref = refOf(obj);
    const id = objectKeyOf(obj);
    const known = previous.get(id);
    if (unchanged.has(id) && known !== undefined) {
      outcomes[i] = { id, version: known, drifted: false };
      results[i] = { ...ref, state: "applied" };
      return;
    }
    if (!ownedBy(obj.metadata.labels, scope)) return fail(i, id, ref, { type: "not-owned" });
    try {
      // A waypoint is a Gateway users make too: one of this name that is not ours is never taken over.
      if (guarded(obj)) {
        const found = await kube.read<KubeObject>(ref);
        if (found !== undefined && !ownedBy(found.metadata?.labels, scope)) return fail(i, id, ref, { type: "foreign" });
      }
      const stored = await kube.apply(structuredClone(obj) as never);
      const version = (stored as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? "";
      outcomes[i] = { id, version, drifted: known !== undefined && known !== version };
      results[i] = { ...ref, state: "applied" };
    } catch (error) {
      fail(i, id, ref, failureOf(error));
    }
  };
  for (let start = 0; start < ordered.length; ) {
    const rankOf = (i: number) => kindRank((ordered[i] as KubeObject).apiVersion, (ordered[i] as KubeObject).kind);
    const rank = rankOf(start);
    let end = start;
    while (end < ordered.length && rankOf(end) === rank) end++;
    await inParallel(start, end, concurrency, applyOne);
    start = end;
  }
  const versions = new Map<string, string>();
  const drifted: string[] = [];
  for (const o of outcomes) {
    if (o === undefined) continue;
    versions.set(o.id, o.version);
    if (o.drifted) drifted.push(o.id);
  }
  return { results, drifted, versions, failed };
}

/** Runs `fn` for every index in [start, end) with at most `limit` in flight. */
async function inParallel(start: number, end: number, limit: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = start;
  const lane = async () => {
    while (next < end) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, end - start)) }, lane));
}

/**
 * Kinds whose objects the agent reads before its first apply, to leave alone one of the same name it
 * does not own: Gateway API Gateways (waypoints on demand, docs/ambient.md#waypoints-on-demand). The
 * other kinds keep one apply per object.
 */
function guarded(obj: KubeObject): boolean {
  return obj.kind === "Gateway" && groupOf(obj.apiVersion) === "gateway.networking.k8s.io";
}

function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) };
}
