import type { Destination, HttpMatcher, StoredResource, TrafficPolicyFeatures, WorkloadSelector } from "../../api/index";
import { Canonicalizer } from "../output/canonical";
import { compareStrings } from "../compare";
import { OwnedFields } from "../policy/owned-fields";
import type { ScopedFields } from "./caller-scopes";

export type TrafficPolicy = StoredResource<"TrafficPolicy">;

/**
 * The routes policies with equal sourceSelector and httpRequestMatchers share
 * (docs/resources.md#trafficpolicy: they share one route). Fields are kept per service port,
 * because route destinations name a port.
 */
export interface RouteGroup {
  readonly sources: readonly WorkloadSelector[] | undefined;
  readonly matchers: readonly HttpMatcher[] | undefined;
  /** Position in acceptance order of the group's first policy; orders equally specific routes. */
  readonly rank: number;
  readonly byPort: Map<number, OwnedFields>;
}

/** Everything accepted policies contributed to one Istio destination. */
export interface IstioDestinationState {
  readonly destination: Destination;
  /** By group key, in rank order. */
  readonly groups: Map<string, RouteGroup>;
  /** DestinationRule `spec.trafficPolicy` fields of policies for every caller. */
  readonly trafficPolicy: OwnedFields;
  /** DestinationRule fields of policies with a sourceSelector, by `scopeKey` (caller-scopes.ts). */
  readonly scoped: Map<string, ScopedFields>;
}

/** The state of a destination no policy has been applied to: no routes, no DestinationRule fields. */
export function emptyState(destination: Destination): IstioDestinationState {
  return { destination, groups: new Map(), trafficPolicy: new OwnedFields(), scoped: new Map() };
}

/** Canonical JSON of each list member, sorted: selector and matcher lists are ORs, so order is not meaning. */
function orderFree(list: readonly unknown[] | undefined, canon: Canonicalizer): string[] {
  return (list ?? []).map((item) => canon.json(item)).sort(compareStrings);
}

/** The route group a policy belongs to: equal source selectors and matchers (in any order) give equal keys. */
export function groupKey(spec: TrafficPolicy["spec"]): string {
  const canon = new Canonicalizer();
  return JSON.stringify([orderFree(spec.sourceSelector, canon), orderFree(spec.httpRequestMatchers, canon)]);
}

/** Policies that set any route feature (as opposed to DestinationRule-only features). */
export function routeFeaturesOf(features: TrafficPolicyFeatures, routeFeatures: readonly (keyof TrafficPolicyFeatures)[]): string[] {
  return routeFeatures.filter((f) => features[f] !== undefined);
}
