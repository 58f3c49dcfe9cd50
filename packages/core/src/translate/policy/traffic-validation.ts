import { labelsText } from "../compare";
import type { Destination } from "../../api/index";
import type { TrafficPolicy } from "../istio/destination-state";
import { type Model, refKey, type ServiceKey } from "../input/model";
import { hasLabels } from "../input/placement-index";

/** Errors about one trafficShift or mirror target: it must exist, have the port named, and back the subset. */
function targetErrors(model: Model, where: string, ref: ServiceKey & { port?: number | undefined; subset?: Record<string, string> | undefined }): string[] {
  const target: Destination | undefined = model.destinationByRef(ref);
  if (target === undefined) return [`${where}: service ${refKey(ref)} ${model.missing(refKey(ref))}`];
  const errors: string[] = [];
  if (ref.port !== undefined && !target.spec.ports.some((p) => p.port === ref.port)) errors.push(`${where}: service ${refKey(ref)} has no port ${ref.port}`);
  const backing = model.backingWorkloads(target);
  // Without known workloads (scaled to zero, discovered by annotation) there is nothing to check against.
  if (ref.subset !== undefined && backing.length > 0 && !backing.some((w) => hasLabels(w.spec.labels, ref.subset))) {
    errors.push(`${where}: no workload of service ${refKey(ref)} has labels ${labelsText(ref.subset)}`);
  }
  return errors;
}

/**
 * Errors that make a TrafficPolicy INVALID everywhere (docs/resources.md#selectors and
 * #trafficpolicy): explicit refs — in destinationSelector, trafficShift or mirror — to services
 * that were not discovered, ports they do not have, subsets no backing workload carries. `missing`
 * are the destinationSelector refs the selection did not find. A policy with such errors is applied
 * nowhere: half-applying a canary whose other half is a typo would send traffic somewhere the user
 * did not ask for.
 */
export function trafficPolicyErrors(policy: TrafficPolicy, model: Model, missing: readonly string[]): string[] {
  const features = policy.spec.policy;
  const errors = missing.map((ref) => `destinationSelector: service ${ref} ${model.missing(ref)}`);
  (features.trafficShift?.destinations ?? []).forEach((d, i) => errors.push(...targetErrors(model, `trafficShift.destinations[${i}]`, d.kubeService)));
  if (features.mirror !== undefined) errors.push(...targetErrors(model, "mirror", features.mirror.kubeService));
  return errors;
}
