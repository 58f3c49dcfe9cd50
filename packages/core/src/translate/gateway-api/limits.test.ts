import { describe, expect, it } from "vitest";
import type { Destination, HttpMatcher } from "../../api/index";
import { emptyState, type IstioDestinationState } from "../istio/destination-state";
import { OwnedFields } from "../policy/owned-fields";
import { HTTPROUTE_LIMITS, policyLimitErrors, routeFitErrors } from "./limits";

const REVIEWS = { metadata: { name: "reviews-bookinfo-c1" }, spec: { name: "reviews", namespace: "bookinfo", ports: [] } } as unknown as Destination;

const path = (i: number): HttpMatcher => ({ uri: { exact: `/p${i}` } });
const many = <T>(n: number, item: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => item(i));

/** A state whose route on port 9080 has one rule per entry: [its matchers, its fields, the policy that set them]. */
function stateWith(rules: [HttpMatcher[], Record<string, unknown>, string][]): IstioDestinationState {
  const state = emptyState(REVIEWS);
  rules.forEach(([matchers, fields, policy], rank) => {
    const owned = new OwnedFields();
    owned.commit(fields, policy);
    state.groups.set(JSON.stringify(matchers), { sources: undefined, matchers, rank, byPort: new Map([[9080, owned]]) });
  });
  return state;
}

describe("policyLimitErrors: one policy over an HTTPRoute rule's limits", () => {
  it.each<[string, HttpMatcher[] | undefined, object, string[]]>([
    ["64 matchers fit one rule", many(64, path), {}, []],
    ["65 matchers do not", many(65, path), {}, ["httpRequestMatchers: 65 matchers; an HTTPRoute rule holds at most 64 matches"]],
    ["16 headers in a matcher fit", [{ headers: many(16, (i) => ({ name: `h${i}` })) }], {}, []],
    ["17 headers in a matcher do not", [{ headers: many(17, (i) => ({ name: `h${i}` })) }], {}, ["httpRequestMatchers[0].headers: 17 headers"]],
    ["a header named twice (any case) counts once", [{ headers: [...many(16, (i) => ({ name: `h${i}` })), { name: "H0" }] }], {}, []],
    [
      "17 query parameters in a matcher",
      [{ queryParameters: many(17, (i) => ({ name: `q${i}` })) }],
      {},
      ["httpRequestMatchers[0].queryParameters: 17 parameters"],
    ],
    [
      "17 trafficShift destinations",
      undefined,
      { trafficShift: { destinations: many(17, (i) => ({ kubeService: { cluster: "c1", namespace: "bookinfo", name: `v${i}` }, weight: 1 })) } },
      ["trafficShift: 17 destinations; an HTTPRoute rule sends to at most 16 backends"],
    ],
    [
      "17 request headers added, 17 response headers removed",
      undefined,
      { headerManipulation: { appendRequestHeaders: Object.fromEntries(many(17, (i) => [`x-${i}`, "v"])), removeResponseHeaders: many(17, (i) => `y-${i}`) } },
      ["headerManipulation.request headers: 17 headers; Gateway API's header modifier adds at most 16", "headerManipulation.response headers: 17 headers;"],
    ],
  ])("%s", (_name, matchers, features, errors) => {
    expect(policyLimitErrors(matchers, features)).toEqual(errors.map((e) => expect.stringContaining(e)));
  });
});

describe("routeFitErrors: a policy's rule among the accepted ones", () => {
  const timeout = { timeouts: { request: "1s" } };

  it("15 rules with matchers and the final rule to the service fill a route; a 16th rule with matchers is one too many", () => {
    const state = stateWith(many(15, (i) => [[path(i)], timeout, `p${i}`]));
    expect(routeFitErrors(state, "new", [path(99)], 9080, timeout)).toEqual([
      expect.stringContaining(`the HTTPRoute for port 9080 would have 17 rules; Gateway API allows at most ${HTTPROUTE_LIMITS.rulesPerRoute} per route`),
    ]);
  });

  it("a 16th rule without matchers takes the final rule's place", () => {
    const state = stateWith(many(15, (i) => [[path(i)], timeout, `p${i}`]));
    expect(routeFitErrors(state, "every", undefined, 9080, timeout)).toEqual([]);
  });

  it("joining an existing rule adds none, and other ports do not count", () => {
    const state = stateWith(many(15, (i) => [[path(i)], timeout, `p${i}`]));
    expect(routeFitErrors(state, JSON.stringify([path(0)]), [path(0)], 9080, timeout)).toEqual([]);
    expect(routeFitErrors(state, "new", [path(99)], 9081, timeout)).toEqual([]);
  });

  it("more than 128 matches across the route's rules", () => {
    const state = stateWith([
      [many(64, path), timeout, "a"],
      [many(64, (i) => path(100 + i)), timeout, "b"],
    ]);
    expect(routeFitErrors(state, "new", [path(999)], 9080, timeout)).toEqual([
      expect.stringContaining("would have 130 matches; Gateway API allows at most 128"),
    ]);
  });

  it("headers added by several policies on one rule count together", () => {
    const key = JSON.stringify([]);
    const state = stateWith([[[], { requestHeaderModifier: { add: Object.fromEntries(many(10, (i) => [`a-${i}`, "v"])) } }, "first"]]);
    const seven = { requestHeaderModifier: { add: Object.fromEntries(many(7, (i) => [`b-${i}`, "v"])) } };
    const six = { requestHeaderModifier: { add: Object.fromEntries(many(6, (i) => [`b-${i}`, "v"])) } };
    expect(routeFitErrors(state, key, [], 9080, seven)).toEqual([expect.stringContaining("it would add 17; Gateway API's header modifier adds at most 16")]);
    expect(routeFitErrors(state, key, [], 9080, six)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>, string[]]>([
    [
      "a perTryTimeout longer than another policy's requestTimeout",
      { timeouts: { request: "1s" } },
      { timeouts: { backendRequest: "2s" } },
      ["retries.perTryTimeout: TrafficPolicy first sets requestTimeout 1s on the same HTTPRoute rule"],
    ],
    [
      "a requestTimeout shorter than another policy's perTryTimeout",
      { timeouts: { backendRequest: "2s" } },
      { timeouts: { request: "1s500ms" } },
      ["requestTimeout: TrafficPolicy first sets retries.perTryTimeout 2s on the same HTTPRoute rule"],
    ],
    ["a perTryTimeout within it", { timeouts: { request: "1m" } }, { timeouts: { backendRequest: "2s" } }, []],
    ["a requestTimeout of 0s (none)", { timeouts: { request: "0s" } }, { timeouts: { backendRequest: "2s" } }, []],
  ])("%s", (_name, first, second, errors) => {
    const key = JSON.stringify([]);
    const state = stateWith([[[], first, "first"]]);
    expect(routeFitErrors(state, key, [], 9080, second)).toEqual(errors.map((e) => expect.stringContaining(e)));
  });
});
