import { GENERATED_KINDS, type KubeObject, type ObjectResult, apiVersionsOf, groupOf, objectKeyOf } from "@meshplane/core";
import { failureOf } from "../kube/failure";
import type { KubeClient, ObjectRef } from "../kube/kube";
import { type Scope, ownedSelector } from "../ownership";
import type { StageEnv } from "./env";
import { failedResult } from "./object-results";

export interface PruneInput {
  /** The desired set of the snapshot verified last: what is not in it goes. */
  objects: readonly KubeObject[];
}

export interface PruneOutput {
  /** One result per object pruned or failed (listing a kind that failed is one result, name `*`). */
  results: ObjectResult[];
  /** Time spent, for the log. */
  ms: number;
}

/** The prune stage: deletes what this agent owns (ownedSelector) that is no longer desired; it runs whenever apply ran. */
export async function pruneStage(env: Pick<StageEnv, "kube" | "scope">, input: PruneInput): Promise<PruneOutput> {
  const started = performance.now();
  const results = await pruneUndesired(env.kube, env.scope, new Set(input.objects.map(groupKeyOf)));
  return { results, ms: performance.now() - started };
}

/**
 * An object's key in its API group (`group objectKey`): Istio's and Gateway API's `Gateway` of one
 * name are two objects.
 */
export function groupKeyOf(object: Pick<KubeObject, "apiVersion" | "kind" | "metadata">): string {
  return `${groupOf(object.apiVersion)} ${objectKeyOf(object)}`;
}

/**
 * Deletes, in reverse kind order, the objects that carry meshplane's owner labels for this tenant and
 * cluster and whose groupKeyOf is not in `wanted` — nothing else is ever touched. Every generated kind
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
        results.push(failedResult({ apiVersion, kind, name: "*" }, failureOf(error), "cannot list for pruning: "));
        continue;
      }
      for (const item of items) {
        const id = groupKeyOf({ apiVersion, kind, metadata: item.metadata as KubeObject["metadata"] });
        // The same object is served under every version of its CRD: handle it once.
        if (wanted.has(id) || seen.has(id)) continue;
        seen.add(id);
        const ref: ObjectRef = {
          apiVersion,
          kind,
          name: item.metadata?.name ?? "",
          ...(item.metadata?.namespace ? { namespace: item.metadata.namespace } : {}),
        };
        try {
          await kube.delete(ref);
          results.push({ ...ref, state: "pruned" });
        } catch (error) {
          results.push(failedResult(ref, failureOf(error), "prune: "));
        }
      }
    }
  }
  return results;
}
