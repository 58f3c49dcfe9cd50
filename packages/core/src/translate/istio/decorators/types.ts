import type { Destination, TrafficPolicyFeatures } from "../../../api/index";
import type { Model } from "../../input/model";
import type { DestinationTrafficPolicy, HttpRouteFields } from "../types";

/** A TrafficPolicy feature, named as in the API (`requestTimeout`, `trafficShift`). */
export type Feature = keyof TrafficPolicyFeatures;

export interface DecoratorContext {
  model: Model;
  /** The destination the policy is being applied to. */
  destination: Destination;
  /** Records a user error for this policy on this destination; the policy is then not applied there. */
  report(error: string): void;
}

export interface RouteContext extends DecoratorContext {
  /** The service port the route matches (one route per port, docs/resources.md#trafficpolicy). */
  port: number;
}

export type TrafficPolicyContext = DecoratorContext;

/**
 * Turns one feature into VirtualService http route fields. Returns undefined when the policy does not
 * use the feature. Pure: the caller merges the result with other policies' and detects conflicts.
 * `F` is the feature it handles, so the handler table (index.ts) can check it sits under its own key.
 */
export interface RouteDecorator<F extends Feature = Feature> {
  readonly feature: F;
  decorate(features: TrafficPolicyFeatures, ctx: RouteContext): HttpRouteFields | undefined;
}

/** Turns one feature into DestinationRule `trafficPolicy` fields; undefined when unused. */
export interface TrafficPolicyDecorator<F extends Feature = Feature> {
  readonly feature: F;
  decorate(features: TrafficPolicyFeatures, ctx: TrafficPolicyContext): DestinationTrafficPolicy | undefined;
}
