import { type AuthoredStatus, type AuthoredView, type Submission, authoredStatus, canonicalJson } from "@meshplane/core";
import type { CustomResource } from "./objects";

/**
 * The status the agent writes into a custom resource (docs/gitops.md#status-in-the-cluster), from
 * what it knows of its last submission and the stored resource's status as the control plane
 * answered it.
 */

/**
 * The submission a custom resource's status is about: what the agent knows of its current
 * generation (`known`); else, when the control plane holds that very uid and generation (`view`,
 * read back after a restart), that; else it is still to be sent (`submitting`, with `message`).
 */
export function submissionFor(cr: CustomResource, known: Submission | undefined, view: AuthoredView | undefined, message?: string): Submission {
  const generation = cr.metadata.generation;
  if (known !== undefined && known.generation === generation) return known;
  if (view !== undefined && view.source.uid === cr.metadata.uid && view.source.generation === generation) {
    return { generation, state: "stored", name: view.name, storedGeneration: view.generation };
  }
  return { generation, state: "submitting", ...(message ? { message } : {}) };
}

/**
 * The `/status` of `cr` for `submission` and the stored resource `view` (undefined: not read, or not
 * held), or undefined when the one it has already says the same — a lastTransitionTime alone is no
 * change. A view of another uid or name is not this resource's.
 */
export function nextStatus(cr: CustomResource, submission: Submission, view: AuthoredView | undefined, now: string): AuthoredStatus | undefined {
  const ours = view !== undefined && submission.state === "stored" && view.source.uid === cr.metadata.uid && view.name === submission.name;
  const next = authoredStatus(submission, ours ? view.status : undefined, cr.status?.conditions, now);
  return sameStatus(cr.status, next) ? undefined : next;
}

const withoutTimes = (status: unknown): unknown => {
  const s = (status ?? {}) as { conditions?: { lastTransitionTime?: string }[] };
  return { ...s, conditions: (s.conditions ?? []).map((c) => Object.fromEntries(Object.entries(c).filter(([k]) => k !== "lastTransitionTime"))) };
};

/** Whether two statuses say the same but for their conditions' lastTransitionTime. */
export function sameStatus(a: unknown, b: unknown): boolean {
  return canonicalJson(withoutTimes(a)) === canonicalJson(withoutTimes(b));
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: a field of `from` that `to` lacks is
 * null (removed), maps are patched field by field, anything else is replaced.
 */
export function mergePatchOf(from: unknown, to: Record<string, unknown>): Record<string, unknown> {
  const before = isMap(from) ? from : {};
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) if (!(key in to)) patch[key] = null;
  for (const [key, value] of Object.entries(to)) {
    const old = before[key];
    if (isMap(value) && isMap(old)) {
      const inner = mergePatchOf(old, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (canonicalJson(old) !== canonicalJson(value)) patch[key] = value;
  }
  return patch;
}
