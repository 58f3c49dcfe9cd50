import type { ResourceStatus } from "../api/status";

/**
 * What the agent knows of its last submission of a custom resource (docs/gitops.md#status-in-the-cluster):
 * in flight (or not yet possible), refused by the control plane with reasons, or stored under `name`
 * at the control plane's `storedGeneration`.
 */
export type Submission =
  | { generation: number; state: "submitting"; message?: string }
  | { generation: number; state: "refused"; reason: RefusalReason; errors: string[] }
  | { generation: number; state: "stored"; name: string; storedGeneration: number };

/** Why the control plane refused a custom resource: meshplane's validation, its cluster's grant, or a name another resource holds. */
export type RefusalReason = "Invalid" | "OutsideGrant" | "Conflict";

/** A kstatus-style condition (metav1.Condition's fields). */
export interface Condition {
  type: "Ready" | "Reconciling" | "Stalled";
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  observedGeneration: number;
  lastTransitionTime: string;
}

/** At most this many destinations and clusters are copied into a custom resource's status; the rest are counted. */
export const MAX_STATUS_ENTRIES = 100;
/** At most this many characters of a condition's message (the API server takes up to 32,768). */
const MAX_MESSAGE = 4096;

/** The status meshplane writes to a custom resource's `/status` (docs/gitops.md#status-in-the-cluster). */
export interface AuthoredStatus {
  observedGeneration: number;
  conditions: Condition[];
  meshplane?: {
    name?: string;
    state?: ResourceStatus["state"];
    errors?: string[];
    destinations?: NonNullable<ResourceStatus["destinations"]>;
    destinationsOmitted?: number;
    clusters?: NonNullable<ResourceStatus["clusters"]>;
    clustersOmitted?: number;
  };
}

const clip = (text: string) => (text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`);

/** The first MAX_STATUS_ENTRIES entries of a map by key, and how many were left out. */
function bounded<V>(map: Record<string, V> | undefined): { kept?: Record<string, V>; omitted?: number } {
  if (map === undefined) return {};
  const keys = Object.keys(map).sort();
  const kept = Object.fromEntries(keys.slice(0, MAX_STATUS_ENTRIES).map((k) => [k, map[k] as V]));
  return { kept, ...(keys.length > MAX_STATUS_ENTRIES ? { omitted: keys.length - MAX_STATUS_ENTRIES } : {}) };
}

type Verdict = { ready: "True" | "False" | "Unknown"; reason: string; message: string; progress?: "Reconciling" | "Stalled" };

/** The verdict of a submission and the stored resource's status (docs/gitops.md#status-in-the-cluster). */
function verdict(submission: Submission, stored: ResourceStatus | undefined): Verdict {
  if (submission.state === "submitting") {
    return { ready: "Unknown", reason: "Submitting", message: submission.message ?? "sending to the control plane", progress: "Reconciling" };
  }
  if (submission.state === "refused") {
    return { ready: "False", reason: submission.reason, message: submission.errors.join("; "), progress: "Stalled" };
  }
  if (stored === undefined || stored.observedGeneration < submission.storedGeneration || stored.state === "PENDING") {
    return { ready: "Unknown", reason: "Translating", message: "the control plane is translating this generation", progress: "Reconciling" };
  }
  if (stored.state === "INVALID" || stored.state === "FAILED") {
    const clusterErrors = Object.entries(stored.clusters ?? {}).flatMap(([c, s]) => (s.errors ?? []).map((e) => `${c}: ${e}`));
    const destinationErrors = Object.entries(stored.destinations ?? {}).flatMap(([d, s]) => (s.errors ?? []).map((e) => `${d}: ${e}`));
    const errors = [...(stored.errors ?? []), ...destinationErrors, ...clusterErrors];
    return {
      ready: "False",
      reason: stored.state === "INVALID" ? "Invalid" : "Failed",
      message: errors.join("; ") || stored.state,
      progress: "Stalled",
    };
  }
  const waiting = Object.entries(stored.clusters ?? {})
    .filter(([, s]) => !s.applied)
    .map(([c]) => c);
  if (waiting.length > 0) {
    return { ready: "False", reason: "Applying", message: `waiting for ${waiting.join(", ")} to apply it`, progress: "Reconciling" };
  }
  const applied = Object.keys(stored.clusters ?? {});
  return {
    ready: "True",
    reason: "Accepted",
    message: applied.length > 0 ? `applied in ${applied.join(", ")}` : "accepted; it selects nothing that needs configuration yet",
  };
}

/**
 * The `/status` of a custom resource at `generation` (docs/gitops.md#status-in-the-cluster): kstatus
 * conditions — `Ready` always; `Reconciling` or `Stalled` only while true, as kstatus reads them —
 * and meshplane's own status of the stored resource, its destinations and clusters bounded to
 * MAX_STATUS_ENTRIES. `observedGeneration` is the generation last submitted: an edit the agent has
 * not yet sent reads as in progress. A condition keeps its lastTransitionTime from `previous` while
 * its status stays the same.
 */
export function authoredStatus(
  submission: Submission,
  stored: ResourceStatus | undefined,
  previous: readonly Condition[] | undefined,
  now: string,
): AuthoredStatus {
  const v = verdict(submission, stored);
  const observedGeneration = submission.generation;
  const since = (type: Condition["type"], status: Condition["status"]) => {
    const before = previous?.find((c) => c.type === type);
    return before !== undefined && before.status === status ? before.lastTransitionTime : now;
  };
  const condition = (type: Condition["type"], status: Condition["status"]): Condition => ({
    type,
    status,
    reason: v.reason,
    message: clip(v.message),
    observedGeneration,
    lastTransitionTime: since(type, status),
  });
  const conditions = [condition("Ready", v.ready), ...(v.progress ? [condition(v.progress, "True")] : [])];
  if (submission.state !== "stored") {
    return { observedGeneration, conditions, ...(submission.state === "refused" ? { meshplane: { errors: submission.errors.map(clip) } } : {}) };
  }
  const destinations = bounded(stored?.destinations);
  const clusters = bounded(stored?.clusters);
  return {
    observedGeneration,
    conditions,
    meshplane: {
      name: submission.name,
      ...(stored ? { state: stored.state } : {}),
      ...(stored?.errors ? { errors: stored.errors.map(clip) } : {}),
      ...(destinations.kept ? { destinations: destinations.kept } : {}),
      ...(destinations.omitted ? { destinationsOmitted: destinations.omitted } : {}),
      ...(clusters.kept ? { clusters: clusters.kept } : {}),
      ...(clusters.omitted ? { clustersOmitted: clusters.omitted } : {}),
    },
  };
}
