import type { Destination, TrafficPolicyFeatures } from "../../api/index";
import type { TrafficPolicy } from "../istio/destination-state";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";
import { deepEqual } from "../policy/owned-fields";
import { SMI_API_VERSIONS } from "../output/versions";
import { osmTrafficErrors } from "./unsupported";

export interface Split {
  owner: TrafficPolicy;
  backends: { service: string; weight: number }[];
}

function backendsOf(features: TrafficPolicyFeatures): Split["backends"] | undefined {
  return features.trafficShift?.destinations.map((d) => ({ service: d.kubeService.name, weight: d.weight }));
}

/**
 * Applies `ordered` policies (valid, acceptance order) to an OSM destination
 * (docs/resources.md#trafficpolicy). A policy using anything SMI cannot express is INVALID here,
 * naming each feature. The first accepted trafficShift owns the destination's one TrafficSplit; a
 * later, different one conflicts.
 */
export function applyToOsmDestination(
  destination: Destination,
  ordered: readonly TrafficPolicy[],
  model: Model,
  report: (policy: TrafficPolicy, error: string) => void,
): { split: Split | undefined; accepted: TrafficPolicy[] } {
  let split: Split | undefined;
  const accepted: TrafficPolicy[] = [];
  for (const policy of ordered) {
    const errors = osmTrafficErrors(policy.spec, destination, model);
    const backends = backendsOf(policy.spec.policy);
    if (errors.length === 0 && backends !== undefined && split !== undefined && !deepEqual(split.backends, backends)) {
      errors.push(`conflicts with TrafficPolicy ${split.owner.metadata.name}: both set TrafficSplit backends to different values`);
    }
    if (errors.length > 0) {
      for (const error of errors) report(policy, error);
      continue;
    }
    if (backends !== undefined && split === undefined) split = { owner: policy, backends };
    accepted.push(policy);
  }
  return { split, accepted };
}

/** The TrafficSplit (`split.smi-spec.io/v1alpha2`) for a destination: root service → weighted backends. */
export function trafficSplit(destination: Destination, split: Split, accepted: readonly TrafficPolicy[]): ObjectDraft {
  const backends = backendsOf(split.owner.spec.policy) ?? [];
  const parents = accepted.filter((p) => deepEqual(backendsOf(p.spec.policy), backends));
  return {
    apiVersion: SMI_API_VERSIONS.split,
    kind: "TrafficSplit",
    name: generatedName(destination.spec.name),
    namespace: destination.spec.namespace,
    spec: { service: destination.spec.name, backends },
    parents: parents.map((p) => ({ kind: "TrafficPolicy", name: p.metadata.name })),
  };
}
