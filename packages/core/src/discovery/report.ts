/**
 * Something in the cluster that looks like mesh configuration but cannot be used as it is (an istiod
 * without its mesh ConfigMap, meshConfig that is not YAML). Discovery skips it and says why; the agent
 * logs these. They are the cluster owner's mistakes, not bugs, so they are reported, never thrown.
 */
export interface DiscoveryProblem {
  /** `<Kind> <namespace>/<name>` of the object at fault. */
  object: string;
  message: string;
}

export type ReportProblem = (problem: DiscoveryProblem) => void;

/** The `object` text of a problem: `Deployment istio-system/istiod`. */
export function describeObject(kind: string, namespace: string | undefined, name: string): string {
  return `${kind} ${namespace ?? ""}/${name}`;
}
