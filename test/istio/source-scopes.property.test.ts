/**
 * Property, judged by Istio: for random TrafficPolicies with random sourceSelectors, no setting a
 * policy generates — DestinationRule (outlier detection) or VirtualService route (timeout) —
 * reaches a caller the policy does not select, and every caller an accepted policy selects gets
 * such a setting from some policy that selects it. Each policy carries its own marker values, so
 * the Envoy config a sidecar receives names the policy it came from.
 */
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TenantDescription } from "../golden/tenant";
import { clustersOf, judgeTenant, proxyConfig, selectRoute } from "./features-support";
import { virtualHostNamed } from "./envoy";
import type { Envoy } from "./judge";

const HOST = "reviews.bookinfo.svc.cluster.local";
const NAMESPACES = ["bookinfo", "frontend", "mobile"] as const;
const CALLERS = [
  { name: "productpage", namespace: "bookinfo", labels: { app: "productpage", tier: "web" } },
  { name: "web", namespace: "frontend", labels: { app: "web", tier: "web" } },
  { name: "admin", namespace: "frontend", labels: { app: "admin", tier: "ops" } },
  { name: "app", namespace: "mobile", labels: { app: "app", tier: "web" } },
  { name: "batch", namespace: "mobile", labels: { app: "batch", tier: "ops" } },
] as const;
type Caller = (typeof CALLERS)[number];

interface Matcher {
  labels?: Record<string, string>;
  namespaces?: string[];
  clusters?: string[];
}

const matcher: fc.Arbitrary<Matcher> = fc.record(
  {
    labels: fc.oneof(
      fc.record({ tier: fc.constantFrom("web", "ops") }),
      fc.record({ app: fc.constantFrom(...CALLERS.map((c) => c.labels.app)) }),
      fc.record({ app: fc.constantFrom("web", "app"), tier: fc.constantFrom("web", "ops") }),
    ),
    namespaces: fc.uniqueArray(fc.constantFrom(...NAMESPACES), { minLength: 1, maxLength: 2 }),
    clusters: fc.constantFrom(["cluster-1"], ["cluster-2"]),
  },
  { requiredKeys: [] },
);

/** Random policies for reviews: each has a sourceSelector or none, and marker values. */
const policies = fc.array(
  fc.record({
    sources: fc.option(fc.array(matcher, { minLength: 1, maxLength: 2 }), { nil: undefined, freq: 4 }),
    outlier: fc.boolean(),
    timeout: fc.boolean(),
  }),
  { minLength: 1, maxLength: 5 },
);

function selects(sources: Matcher[] | undefined, caller: Caller): boolean {
  if (sources === undefined) return true;
  return sources.some(
    (m) =>
      (m.clusters === undefined || m.clusters.includes("cluster-1")) &&
      (m.namespaces === undefined || m.namespaces.includes(caller.namespace)) &&
      Object.entries(m.labels ?? {}).every(([k, v]) => (caller.labels as Record<string, string>)[k] === v),
  );
}

function tenant(drawn: { sources: Matcher[] | undefined; outlier: boolean; timeout: boolean }[]): TenantDescription {
  return {
    clusters: {
      "cluster-1": {
        workloads: [
          { name: "reviews-v1", namespace: "bookinfo", labels: { app: "reviews", version: "v1" } },
          ...CALLERS.map((c) => ({ ...c, labels: { ...c.labels } })),
        ],
        services: [{ name: "reviews", namespace: "bookinfo" }],
      },
      "cluster-2": {},
    },
    trafficPolicies: drawn.map((p, i) => ({
      name: `p${i}`,
      spec: {
        ...(p.sources === undefined ? {} : { sourceSelector: p.sources.map((m) => ({ kubeWorkloadMatcher: m })) }),
        destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "cluster-1", namespace: "bookinfo", name: "reviews" }] } }],
        // Markers: policy i ejects after 11+i errors and times out after i+1 s. A policy with
        // neither feature still sets one, so every policy is visible somewhere.
        policy: {
          ...(p.outlier || !p.timeout ? { outlierDetection: { consecutiveErrors: 11 + i } } : {}),
          ...(p.timeout ? { requestTimeout: `${i + 1}s` } : {}),
        },
      },
    })),
  } as unknown as TenantDescription;
}

describe("property: source-scoped settings reach exactly the selected callers", () => {
  it("for random policies, every DestinationRule and route setting a sidecar gets comes from a policy that selects it", () => {
    fc.assert(
      fc.property(policies, (drawn) => {
        const judged = judgeTenant(tenant(drawn));
        const accepted = (i: number) => judged.output.statuses[`TrafficPolicy/p${i}`]?.destinations?.["reviews-bookinfo-cluster-1"]?.state === "ACCEPTED";
        const policyHas = (i: number, feature: "outlier" | "timeout") => {
          const p = drawn[i];
          return p !== undefined && (feature === "timeout" ? p.timeout : p.outlier || !p.timeout);
        };
        for (const caller of CALLERS) {
          const config = proxyConfig(judged, `${caller.namespace}/${caller.name}`);
          const selectedBy = (feature: "outlier" | "timeout") =>
            drawn.map((p, i) => i).filter((i) => accepted(i) && policyHas(i, feature) && selects(drawn[i]?.sources, caller));
          // DestinationRule: the outlier marker on the caller's clusters for reviews.
          const markers = new Set(clustersOf(config, HOST, 9080).map((c) => (c.outlierDetection as Envoy | undefined)?.consecutive5xx as number | undefined));
          expect(markers.size, `${caller.name}: one outlier setting on every cluster of reviews`).toBe(1);
          const marker = [...markers][0];
          const outliers = selectedBy("outlier");
          if (marker === undefined) expect(outliers, `${caller.name} gets no outlier detection, yet these accepted policies select it`).toEqual([]);
          else expect(outliers, `${caller.name} gets outlier detection of p${marker - 11}`).toContain(marker - 11);
          // VirtualService: the timeout of the route a request from the caller takes.
          const route = selectRoute(virtualHostNamed(config, "9080", `${HOST}:9080`), { method: "GET", path: "/" });
          const timeout = (route?.route as Envoy | undefined)?.timeout as string | undefined;
          const timeouts = selectedBy("timeout");
          if (timeout === undefined || timeout === "0s") expect(timeouts, `${caller.name} gets no timeout, yet these accepted policies select it`).toEqual([]);
          else expect(timeouts, `${caller.name} gets timeout ${timeout}`).toContain(Number.parseInt(timeout, 10) - 1);
        }
      }),
      { numRuns: Number(process.env.MESHPLANE_PROPERTY_RUNS ?? 20) },
    );
  });
});
