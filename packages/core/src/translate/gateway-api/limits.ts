import { type HttpMatcher, type TrafficPolicyFeatures, parseDuration } from "../../api/index";
import type { IstioDestinationState } from "../istio/destination-state";
import type { Fields, OwnedFields } from "../policy/owned-fields";
import type { RuleFields } from "./decorators/index";

/**
 * The size limits of Gateway API's HTTPRoute (v1.6.0, both channels: `maxItems` in its CRD, and the
 * CEL rule on matches across rules). The API server refuses a route over any of them whole, so a
 * policy that would push its route over one is INVALID there, naming the limit
 * (docs/ambient.md#gateway-api-limits).
 */
export const HTTPROUTE_LIMITS = {
  rulesPerRoute: 16,
  matchesPerRule: 64,
  matchesPerRoute: 128,
  headersPerMatch: 16,
  queryParamsPerMatch: 16,
  backendRefsPerRule: 16,
  headerModifierEntries: 16,
} as const;

const L = HTTPROUTE_LIMITS;

function distinct(names: readonly string[]): number {
  return new Set(names).size;
}

/** Over a header modifier's limits: each of `add` and `remove` holds at most 16 headers. */
function modifierErrors(what: string, add: Record<string, string> | undefined, remove: readonly string[] | undefined): string[] {
  const errors: string[] = [];
  const added = Object.keys(add ?? {}).length;
  if (added > L.headerModifierEntries)
    errors.push(`headerManipulation.${what}: ${added} headers; Gateway API's header modifier adds at most ${L.headerModifierEntries}`);
  const removed = distinct(remove ?? []);
  if (removed > L.headerModifierEntries)
    errors.push(`headerManipulation.${what}: ${removed} headers; Gateway API's header modifier removes at most ${L.headerModifierEntries}`);
  return errors;
}

/**
 * Why one policy on its own does not fit an HTTPRoute rule: more than 64 matchers (one rule holds
 * them all), more than 16 headers or query parameters in a matcher (names counted once, as
 * written), more than 16 trafficShift destinations, more than 16 headers added or removed per side.
 */
export function policyLimitErrors(matchers: readonly HttpMatcher[] | undefined, features: TrafficPolicyFeatures): string[] {
  const errors: string[] = [];
  const split = "split the policy into policies with fewer matchers";
  if ((matchers ?? []).length > L.matchesPerRule) {
    errors.push(
      `httpRequestMatchers: ${matchers?.length} matchers; an HTTPRoute rule holds at most ${L.matchesPerRule} matches (Gateway API's limit): ${split}`,
    );
  }
  for (const [i, m] of (matchers ?? []).entries()) {
    const headers = distinct((m.headers ?? []).map((h) => h.name.toLowerCase()));
    if (headers > L.headersPerMatch)
      errors.push(`httpRequestMatchers[${i}].headers: ${headers} headers; a Gateway API match holds at most ${L.headersPerMatch}`);
    const query = distinct((m.queryParameters ?? []).map((q) => q.name));
    if (query > L.queryParamsPerMatch) {
      errors.push(`httpRequestMatchers[${i}].queryParameters: ${query} parameters; a Gateway API match holds at most ${L.queryParamsPerMatch}`);
    }
  }
  const targets = features.trafficShift?.destinations.length ?? 0;
  if (targets > L.backendRefsPerRule) errors.push(`trafficShift: ${targets} destinations; an HTTPRoute rule sends to at most ${L.backendRefsPerRule} backends`);
  const h = features.headerManipulation;
  if (h !== undefined) {
    errors.push(...modifierErrors("request headers", h.appendRequestHeaders, h.removeRequestHeaders));
    errors.push(...modifierErrors("response headers", h.appendResponseHeaders, h.removeResponseHeaders));
  }
  return errors;
}

/** The matchers of each rule the route on `port` would have with group `key` (matchers `matchers`) among the accepted ones. */
function rulesWith(state: IstioDestinationState, key: string, matchers: readonly HttpMatcher[] | undefined, port: number): number[] {
  const counts = [...state.groups].filter(([k, g]) => k !== key && g.byPort.has(port)).map(([, g]) => g.matchers?.length ?? 0);
  counts.push(matchers?.length ?? 0);
  // A route no rule catches entirely ends with one to the service itself (http-route.ts).
  if (counts.every((n) => n > 0)) counts.push(0);
  return counts;
}

/** Why the merged header modifier of the rule would add more than 16 headers. */
function mergedModifierErrors(existing: OwnedFields | undefined, fields: RuleFields): string[] {
  const errors: string[] = [];
  for (const side of ["requestHeaderModifier", "responseHeaderModifier"] as const) {
    const incoming = Object.keys(fields[side]?.add ?? {});
    if (existing === undefined || incoming.length === 0) continue;
    const merged = new Set([...Object.keys((existing.value as RuleFields)[side]?.add ?? {}), ...incoming]).size;
    if (merged > L.headerModifierEntries) {
      errors.push(
        `headerManipulation: with the headers other policies add on the same HTTPRoute rule, it would add ${merged}; Gateway API's header modifier adds at most ${L.headerModifierEntries}`,
      );
    }
  }
  return errors;
}

/**
 * Why timeouts of the rule would break Gateway API's rule that `backendRequest` (retries'
 * perTryTimeout) is at most `request` (requestTimeout), when two policies set one each.
 */
function mergedTimeoutErrors(existing: OwnedFields | undefined, fields: RuleFields): string[] {
  const set = (existing?.value as RuleFields | undefined)?.timeouts;
  const request = fields.timeouts?.request ?? set?.request;
  const backend = fields.timeouts?.backendRequest ?? set?.backendRequest;
  if (request === undefined || backend === undefined || existing === undefined) return [];
  const requestMs = parseDuration(request) ?? 0;
  if (requestMs === 0 || (parseDuration(backend) ?? 0) <= requestMs) return [];
  const mine = fields.timeouts?.backendRequest === undefined ? "requestTimeout" : "retries.perTryTimeout";
  const theirs = mine === "requestTimeout" ? "timeouts.backendRequest" : "timeouts.request";
  const owner = existing.ownerOf(theirs);
  if (owner === undefined) return [];
  return [
    `${mine}: TrafficPolicy ${owner} sets ${theirs === "timeouts.request" ? `requestTimeout ${request}` : `retries.perTryTimeout ${backend}`} on the same HTTPRoute rule, and Gateway API's timeouts.backendRequest (perTryTimeout) must not exceed timeouts.request (requestTimeout)`,
  ];
}

/**
 * Why a policy's rule `fields` on `port` (route group `key`, matchers `matchers`) cannot join the
 * HTTPRoute the accepted policies make there: more than 16 rules or 128 matches in the route
 * (counting the final rule to the service), more than 16 headers added by the rule's merged
 * modifier, or a backendRequest longer than the rule's request timeout.
 */
export function routeFitErrors(
  state: IstioDestinationState,
  key: string,
  matchers: readonly HttpMatcher[] | undefined,
  port: number,
  fields: Fields,
): string[] {
  const errors: string[] = [];
  const rules = rulesWith(state, key, matchers, port);
  const alternative = "give fewer policies their own matchers (policies with equal matchers share one rule), or select fewer policies for this service";
  if (rules.length > L.rulesPerRoute) {
    errors.push(`the HTTPRoute for port ${port} would have ${rules.length} rules; Gateway API allows at most ${L.rulesPerRoute} per route: ${alternative}`);
  }
  const matches = rules.reduce((n, m) => n + Math.max(1, m), 0);
  if (matches > L.matchesPerRoute) {
    errors.push(`the HTTPRoute for port ${port} would have ${matches} matches; Gateway API allows at most ${L.matchesPerRoute} per route: ${alternative}`);
  }
  const existing = state.groups.get(key)?.byPort.get(port);
  return [...errors, ...mergedModifierErrors(existing, fields as RuleFields), ...mergedTimeoutErrors(existing, fields as RuleFields)];
}
