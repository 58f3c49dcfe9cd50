import { createHash } from "node:crypto";

/** A DNS-1123 label is at most this long; every discovered and generated name must fit in one. */
export const MAX_NAME_LENGTH = 63;
const KEEP_BEFORE_HASH = 31;

/** The controller kinds a Workload name is suffixed with (docs/api.md, "Discovered names"). */
export const WORKLOAD_KIND_SUFFIX = {
  Deployment: "deployment",
  StatefulSet: "statefulset",
  DaemonSet: "daemonset",
} as const;
export type WorkloadKind = keyof typeof WORKLOAD_KIND_SUFFIX;

/**
 * Makes `text` a DNS-1123 label: lower-cases it, turns every character a label cannot hold into `-`,
 * and if the result is longer than 63 characters keeps its first 31, a `-`, then the sha256 hex of
 * the whole sanitised text, cut to 63. Used for generated names; discovered names use
 * `discoveredName`, which is injective. Never throws.
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

/** Hex digits of the hash in a hashed discovered name: 64 bits, so no one can aim at another's name. */
const HASH_HEX = 16;
/** Ends the readable part of a hashed discovered name; a plain one never holds it. */
const HASH_MARK = "---";
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A part a plain name can carry: a DNS-1123 label without `--`. */
function plainPart(part: string): boolean {
  return LABEL.test(part) && !part.includes("--");
}

/**
 * The control plane's name for a discovered object (docs/api.md, "Discovered names"). It is
 * injective over (name, namespace, cluster, suffix), so one cluster can never report an object under
 * another cluster's name, and two honest clusters never collide:
 *
 * - **plain**, `<name>-<namespace>-<cluster>[-<suffix>]` with every `-` of name and namespace
 *   doubled, when name, namespace and cluster are DNS-1123 labels without `--` and the whole fits in
 *   63 characters. Read back: the name runs to the first single `-`, the namespace to the next; the
 *   suffix, when there is one, is the last part (a fixed word); the cluster is what is left. A plain
 *   name never holds `---`.
 * - **hashed** otherwise: as much of the joined parts as fits, `---`, then 16 hex digits of the
 *   sha256 of `name/namespace/cluster/suffix` (`/` cannot occur in any part).
 */
function injectiveName(ref: DiscoveredRef, suffix: string | undefined): string {
  const parts = [ref.name, ref.namespace, ref.cluster, ...(suffix === undefined ? [] : [suffix])];
  if (plainPart(ref.name) && plainPart(ref.namespace) && plainPart(ref.cluster)) {
    const plain = [ref.name.replaceAll("-", "--"), ref.namespace.replaceAll("-", "--"), ...parts.slice(2)].join("-");
    if (plain.length <= MAX_NAME_LENGTH) return plain;
  }
  const hash = createHash("sha256").update(parts.join("/")).digest("hex").slice(0, HASH_HEX);
  const room = MAX_NAME_LENGTH - HASH_MARK.length - HASH_HEX;
  const prefix = parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, room)
    .replace(/^-+|-+$/g, "");
  return `${prefix}${HASH_MARK}${hash}`;
}

/**
 * The name of a discovered Mesh or Destination (see `injectiveName`). The control plane assigns it
 * from what the agent saw (docs/api.md, "Discovered names"); the translator calls it too, so a
 * Destination it refers to by Kubernetes ref gets the same name.
 */
export function discoveredName(ref: DiscoveredRef): string {
  return injectiveName(ref, undefined);
}

/** The name of a discovered Workload: like `discoveredName`, with its controller kind as suffix. */
export function workloadName(ref: DiscoveredRef & { kind: WorkloadKind }): string {
  return injectiveName(ref, WORKLOAD_KIND_SUFFIX[ref.kind]);
}
