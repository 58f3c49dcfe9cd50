import { type Feature, type TrafficPolicyDecorator, connectionPool, loadBalancer, mtls, outlierDetection } from "../../istio/decorators/index";
import { headers } from "./headers";
import { mirror } from "./mirror";
import { retries } from "./retries";
import { timeout } from "./timeout";
import { trafficShift } from "./traffic-shift";
import type { GatewayHandler, RuleDecorator } from "./types";

export type { BackendRef, RuleDecorator, RuleFields } from "./types";

/**
 * The one Gateway API handler of every TrafficPolicy feature (docs/ambient.md#trafficpolicy-as-httproute),
 * in one place as Istio's are: a feature added to the schema does not compile until it has one here.
 * DestinationRule features keep Istio's decorators: sidecars and waypoints both honour the rule.
 */
const HANDLERS: { readonly [F in Feature]-?: GatewayHandler<F> } = {
  trafficShift: { rule: trafficShift },
  requestTimeout: { rule: timeout },
  retries: { rule: retries },
  faultInjection: {
    unsupported:
      "faultInjection: Gateway API has no fault injection and Istio implements no filter for it on HTTPRoute; inject faults with routing.api ISTIO on a mesh whose callers run sidecars",
  },
  corsPolicy: {
    unsupported:
      "corsPolicy: meshplane does not generate Gateway API's CORS filter yet; apply CORS at the ingress, or use routing.api ISTIO on a mesh whose callers run sidecars",
  },
  headerManipulation: { rule: headers },
  mirror: { rule: mirror },
  outlierDetection: { destinationRule: outlierDetection },
  connectionPool: { destinationRule: connectionPool },
  loadBalancer: { destinationRule: loadBalancer },
  mtls: { destinationRule: mtls },
};

const handlers = Object.entries(HANDLERS) as [Feature, GatewayHandler<Feature>][];

/** Every HTTPRoute rule feature's decorator, in the table's order. */
export const RULE_DECORATORS: readonly RuleDecorator[] = handlers.flatMap(([, h]) => (h.rule === undefined ? [] : [h.rule]));

/** Every DestinationRule feature's decorator (Istio's). */
export const GATEWAY_DESTINATION_RULE_DECORATORS: readonly TrafficPolicyDecorator[] = handlers.flatMap(([, h]) =>
  h.destinationRule === undefined ? [] : [h.destinationRule],
);

/** Why each feature a policy sets that Gateway API output cannot express is refused, in the table's order. */
export function unsupportedFeatures(features: Partial<Record<Feature, unknown>>): string[] {
  return handlers.flatMap(([feature, h]) => (h.unsupported !== undefined && features[feature] !== undefined ? [h.unsupported] : []));
}
