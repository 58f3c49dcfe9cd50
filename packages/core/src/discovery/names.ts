import { createHash } from "node:crypto";

/** A DNS-1123 label is at most this long; every discovered and generated name must fit in one. */
export const MAX_NAME_LENGTH = 63;
const KEEP_BEFORE_HASH = 31;

/** The controller kinds a Workload name is suffixed with (API.md §1). */
export const WORKLOAD_KIND_SUFFIX = {
  Deployment: "deployment",
  StatefulSet: "statefulset",
  DaemonSet: "daemonset",
} as const;
export type WorkloadKind = keyof typeof WORKLOAD_KIND_SUFFIX;

/**
 * Makes `text` a DNS-1123 label (API.md §1): lower-cases it, turns `.`, `_`, `/`, `:`, spaces — and,
 * beyond the letter of §1, any other character a label cannot hold — into `-`, and if the result is
 * longer than 63 characters keeps its first 31, a `-`, then the sha256 hex of the whole sanitised
 * text, cut to 63. The hash keeps long names that share a prefix apart; hashing the sanitised form
 * (not the raw text) makes the name a function of what is visible. Never throws; an empty input gives
 * an empty string (callers always pass at least a Kubernetes object name).
 */
export function dnsSafeName(text: string): string {
  const safe = text.toLowerCase().replace(/[^a-z0-9-]/g, "-");
  if (safe.length <= MAX_NAME_LENGTH) return safe;
  const hash = createHash("sha256").update(safe).digest("hex");
  return `${safe.slice(0, KEEP_BEFORE_HASH)}-${hash}`.slice(0, MAX_NAME_LENGTH);
}

/** Identifies one discovered object: the Kubernetes object it came from and its cluster. */
export interface DiscoveredRef {
  name: string;
  namespace: string;
  cluster: string;
}

/**
 * The name of a discovered Mesh or Destination: `<name>-<namespace>-<cluster>` made DNS-safe. The
 * translator calls this too, so a Destination it refers to by Kubernetes ref gets the same name.
 */
export function discoveredName(ref: DiscoveredRef): string {
  return dnsSafeName(`${ref.name}-${ref.namespace}-${ref.cluster}`);
}

/**
 * The name of a discovered Workload: like `discoveredName` with `-<kind>` appended *before* making it
 * DNS-safe, so a Deployment and a StatefulSet of the same name stay apart even when hashed.
 */
export function workloadName(ref: DiscoveredRef & { kind: WorkloadKind }): string {
  return dnsSafeName(`${ref.name}-${ref.namespace}-${ref.cluster}-${WORKLOAD_KIND_SUFFIX[ref.kind]}`);
}
