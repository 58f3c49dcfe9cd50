import type { Destination, TrafficPolicySpec } from "../../api/index";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import { RULE_DECORATORS, unsupportedFeatures } from "./decorators/index";
import { policyLimitErrors } from "./limits";
import { matcherErrors } from "./matches";

const RULE_FEATURES = RULE_DECORATORS.map((d) => d.feature);

/**
 * Why a TrafficPolicy cannot become an HTTPRoute on `destination`, beyond its features' own errors
 * (docs/ambient.md#trafficpolicy-as-httproute): features Gateway API cannot express, matchers it
 * cannot write, a policy over an HTTPRoute rule's size limits, a sourceSelector (an HTTPRoute applies to every caller: a waypoint cannot tell the
 * caller's labels), and routes for a destination federated to other meshes, whose callers would
 * need routes there that Gateway API output does not generate yet.
 */
export function gatewayPolicyErrors(spec: TrafficPolicySpec, destination: Destination, plan: FederationPlan): string[] {
  const errors = [...unsupportedFeatures(spec.policy), ...matcherErrors(spec.httpRequestMatchers), ...policyLimitErrors(spec.httpRequestMatchers, spec.policy)];
  if ((spec.sourceSelector ?? []).length > 0) {
    errors.push(
      "sourceSelector: an HTTPRoute applies to every caller of the service (a waypoint cannot tell the caller's labels); drop sourceSelector, or set routing.api ISTIO on the mesh's VirtualMesh when the callers run sidecars",
    );
  }
  const routed = RULE_FEATURES.filter((f) => spec.policy[f] !== undefined);
  if (routed.length > 0 && plan.exports.has(destination.metadata.name)) {
    errors.push(
      `${routed.join(", ")}: this service is federated to other meshes, and Gateway API output does not generate routes for callers there yet; set routing.api ISTIO on its mesh's VirtualMesh`,
    );
  }
  return errors;
}
