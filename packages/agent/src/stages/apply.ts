import type { KubeObject, ObjectResult } from "@meshplane/core";
import { GENERATED_KINDS, LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT, apiVersionsOf, kindRank, objectKeyOf } from "@meshplane/core";
import type { KubeClient, ObjectRef } from "../kube/kube";

/**
 * What the agent does to the kinds meshplane generates, and so all the chart's ClusterRole grants on
 * them (its test holds the chart to exactly this): apply is a server-side-apply PATCH, which the
 * apiserver also checks as `create` when the object is new; prune lists by owner labels and deletes.
 */
export const GENERATED_KIND_VERBS = ["create", "delete", "list", "patch"] as const;

export interface Scope {
  tenant: string;
  cluster: string;
}

/** meshplane's owner labels for this scope: every object the agent writes carries all three. */
export const ownerLabels = (scope: Scope): Record<string, string> => ({ [LABEL_MANAGED_BY]: "meshplane", [LABEL_TENANT]: scope.tenant, [LABEL_CLUSTER]: scope.cluster });

/** Whether `labels` carry all three owner labels of this scope: the only objects the agent may change or delete. */
export const ownedBy = (labels: Readonly<Record<string, string>> | undefined, scope: Scope): boolean =>
  labels?.[LABEL_MANAGED_BY] === "meshplane" && labels[LABEL_TENANT] === scope.tenant && labels[LABEL_CLUSTER] === scope.cluster;

/** The only objects the agent may ever prune: all three owner labels, for this tenant and cluster. */
export const ownedSelector = (scope: Scope): string =>
  `${LABEL_MANAGED_BY}=meshplane,${LABEL_TENANT}=${scope.tenant},${LABEL_CLUSTER}=${scope.cluster}`;

export interface ApplyOutcome {
  results: ObjectResult[];
  /** Objects whose stored version changed since our last apply: someone edited or deleted them. */
  drifted: string[];
  /** resourceVersion of every object after this apply, for the next drift check. */
  versions: Map<string, string>;
}

/** Server-side applies in flight at once within one kind: enough to hide the apiserver's round trips. */
export const APPLY_CONCURRENCY = 16;

/**
 * Applies the desired set (STYLE.md 9): server-side apply in kind order with our field manager. Kinds
 * go one after another (a kind's objects may name objects of an earlier kind); within a kind up to
 * APPLY_CONCURRENCY applies are in flight. An object in `unchanged` that was applied before
 * (`previous` knows its version) is not sent again; the next resync re-checks it. Errors are collected
 * per object, never fail-fast; results come in kind order, then the snapshot's order. A desired
 * object whose labels do not name this scope is refused (the snapshot is signed, so this is a
 * control-plane bug, but the cluster is ours to guard). Pruning is a separate stage: pruneUndesired.
 */
export async function applyObjects(
  kube: KubeClient,
  scope: Scope,
  desired: readonly KubeObject[],
  previous: ReadonlyMap<string, string>,
  unchanged: ReadonlySet<string> = new Set(),
  concurrency = APPLY_CONCURRENCY,
): Promise<ApplyOutcome> {
  const ordered = [...desired].sort((a, b) => kindRank(a.kind) - kindRank(b.kind));
  const results: ObjectResult[] = Array.from({ length: ordered.length });
  const outcomes: ({ id: string; version: string; drifted: boolean } | undefined)[] = Array.from({ length: ordered.length });
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
    if (!ownedBy(obj.metadata.labels, scope)) {
      results[i] = { ...ref, state: "failed", error: "refused: the object's owner labels do not name this tenant and cluster" };
      return;
    }
    try {
      const stored = await kube.apply(structuredClone(obj) as never);
      const version = (stored as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? "";
      outcomes[i] = { id, version, drifted: known !== undefined && known !== version };
      results[i] = { ...ref, state: "applied" };
    } catch (error) {
      results[i] = { ...ref, state: "failed", error: (error as Error).message };
    }
  };
  for (let start = 0; start < ordered.length; ) {
    const rank = kindRank((ordered[start] as KubeObject).kind);
    let end = start;
    while (end < ordered.length && kindRank((ordered[end] as KubeObject).kind) === rank) end++;
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
  return { results, drifted, versions };
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
 * Deletes, in reverse kind order, the objects that carry meshplane's owner labels for this tenant and
 * cluster and whose objectKey is not in `wanted` — nothing else is ever touched. Every generated kind
 * is listed in every version meshplane may have written it in (GENERATED_KINDS). Per-object results
 * (`pruned` or `failed`), never fail-fast.
 */
export async function pruneUndesired(kube: KubeClient, scope: Scope, wanted: ReadonlySet<string>): Promise<ObjectResult[]> {
  const results: ObjectResult[] = [];
  for (const row of GENERATED_KINDS.toReversed()) {
    const { kind } = row;
    const seen = new Set<string>();
    for (const apiVersion of apiVersionsOf(row)) {
      let items;
      try {
        items = await kube.list(apiVersion, kind, ownedSelector(scope));
      } catch (error) {
        results.push({ apiVersion, kind, name: "*", state: "failed", error: `cannot list for pruning: ${(error as Error).message}` });
        continue;
      }
      for (const item of items) {
        const id = objectKeyOf({ kind, metadata: item.metadata });
        // The same object is served under every version of its CRD: handle it once.
        if (wanted.has(id) || seen.has(id)) continue;
        seen.add(id);
        const ref: ObjectRef = { apiVersion, kind, name: item.metadata?.name ?? "", ...(item.metadata?.namespace ? { namespace: item.metadata.namespace } : {}) };
        try {
          await kube.delete(ref);
          results.push({ ...ref, state: "pruned" });
        } catch (error) {
          results.push({ ...ref, state: "failed", error: `prune: ${(error as Error).message}` });
        }
      }
    }
  }
  return results;
}

function refOf(obj: KubeObject): ObjectRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, ...(obj.metadata.namespace ? { namespace: obj.metadata.namespace } : {}) };
}
