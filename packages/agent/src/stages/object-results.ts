import type { ObjectResult } from "@meshplane/core";
import type { KubeFailure } from "../kube/failure";
import type { ObjectRef } from "../kube/kube";

/**
 * Why one object was not applied or pruned: the agent refused it itself (`not-owned`: its owner
 * labels name another tenant or cluster; `foreign`: an object of that name exists in the cluster and
 * is not meshplane's, so it is left as it is), or a Kubernetes call failed (KubeFailure, typed from
 * the apiserver's status).
 */
export type ObjectError = { type: "not-owned" } | { type: "foreign" } | KubeFailure;

const REFUSALS = {
  "not-owned": "refused: the object's owner labels do not name this tenant and cluster",
  foreign: "refused: an object of this name exists and is not meshplane's; it is left as it is (rename or delete it, or bind the services to it yourself)",
} as const;

/**
 * The `failed` result of one object, as status reports carry it: the apiserver's message, after
 * `prefix` when given (what the agent was doing). The words are part of the protocol's reports.
 */
export function failedResult(ref: ObjectRef, error: ObjectError, prefix = ""): ObjectResult {
  const message = error.type === "not-owned" || error.type === "foreign" ? REFUSALS[error.type] : error.message;
  return { ...ref, state: "failed", error: prefix ? `${prefix}${message}` : message };
}

/** How many of `results` are in `state`. */
export const countByState = (results: readonly ObjectResult[], state: ObjectResult["state"]): number => results.filter((r) => r.state === state).length;
