import type { TrafficPolicyFeatures } from "../../../api/index";
import type { Feature, RouteContext, TrafficPolicyDecorator } from "../../istio/decorators/index";

/** A Service an HTTPRoute sends to: in the route's namespace and cluster (docs/ambient.md#trafficpolicy-as-httproute). */
export type BackendRef = { name: string; port: number; weight?: number };

type HeaderModifier = { add?: Record<string, string>; remove?: string[] };

/**
 * The fields of one HTTPRoute rule that TrafficPolicy features write, as objects so field ownership
 * (policy/owned-fields.ts) merges and compares them leaf by leaf; rendered into Gateway API's
 * `filters`, `timeouts`, `retry` and `backendRefs` by http-route.ts.
 */
export type RuleFields = {
  backendRefs?: BackendRef[];
  timeouts?: { request?: string; backendRequest?: string };
  retry?: { attempts: number; codes?: number[] };
  requestHeaderModifier?: HeaderModifier;
  responseHeaderModifier?: HeaderModifier;
  requestMirror?: { backendRef: BackendRef; percent?: number; fraction?: { numerator: number; denominator: number } };
};

/** Turns one feature into HTTPRoute rule fields; undefined when unused. Errors go to `ctx.report`. */
export interface RuleDecorator<F extends Feature = Feature> {
  readonly feature: F;
  decorate(features: TrafficPolicyFeatures, ctx: RouteContext): RuleFields | undefined;
}

/**
 * A feature's Gateway API handler: HTTPRoute rule fields, the DestinationRule (which waypoints and
 * sidecars honour), or the reason Istio cannot do it with Gateway API and what to do instead.
 */
export type GatewayHandler<F extends Feature> =
  | { readonly rule: RuleDecorator<F>; readonly destinationRule?: never; readonly unsupported?: never }
  | { readonly destinationRule: TrafficPolicyDecorator<F>; readonly rule?: never; readonly unsupported?: never }
  | { readonly unsupported: string; readonly rule?: never; readonly destinationRule?: never };
