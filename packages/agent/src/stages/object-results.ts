import type { ObjectResult } from "@meshplane/core";
import type { KubeFailure } from "../kube/failure";
import type { ObjectRef } from "../kube/kube";

/**
 * Why one object was not applied or pruned: the agent refused it itself (`not-owned`: its owner
 * labels name another tenant or cluster), or a Kubernetes call failed (KubeFailure, typed from the
 * apiserver's status).
 */
export type ObjectError = { type: "not-owned" } | KubeFailure;

/**
 * The `failed` result of one object, as status reports carry it: the apiserver's message, after
 * `prefix` when given (what the agent was doing). The words are part of the protocol's reports.
 */
export function failedResult(ref: ObjectRef, error: ObjectError, prefix = ""): ObjectResult {
  const message = error.type === "not-owned" ? "refused: the object's owner labels do not name this tenant and cluster" : error.message;
  return { ...ref, state: "failed", error: prefix ? `${prefix}${message}` : message };
}

/** How many of `results` are in `state`. */
export const countByState = (results: readonly ObjectResult[], state: ObjectResult["state"]): number => results.filter((r) => r.state === state).length;
