import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Translator, type TranslateInput, type TranslateOutput, translate } from "../../packages/core/src/translate/index";
import { readCase } from "./cases";
import { loadInput } from "./render";

// Policies on the copies of a global service (docs/ambient.md#policies-on-a-global-service): whether
// a policy is INVALID on one copy reads the other copies' selection and outcome, so the worker's
// Translator must follow policy and discovery changes on any copy as translate does.
const input = (): TranslateInput => loadInput(readCase("ambient-federation-policies", "input.yaml") as string);
const WAYPOINT = { name: "waypoint", namespace: "bookinfo" };

type Policies = TranslateInput["trafficPolicies"];

/** `base` with destination `name`'s waypoint set (or removed with undefined), as a new object. */
function withWaypoint(base: TranslateInput, name: string, waypoint: typeof WAYPOINT | undefined): TranslateInput {
  const destinations = base.destinations.map((d) => {
    if (d.metadata.name !== name) return d;
    const { waypoint: _, ...spec } = d.spec;
    return { ...d, spec: waypoint === undefined ? spec : { ...spec, waypoint } };
  });
  return { ...base, destinations };
}

/** `base` with TrafficPolicy `name` selecting `refs` (cluster, namespace bookinfo, service). */
function selecting(base: TranslateInput, name: string, refs: [string, string][]): TranslateInput {
  const trafficPolicies: Policies = base.trafficPolicies.map((p) =>
    p.metadata.name !== name
      ? p
      : {
          ...p,
          spec: {
            ...p.spec,
            destinationSelector: [{ kubeServiceRefs: { services: refs.map(([cluster, n]) => ({ cluster, namespace: "bookinfo", name: n })) } }],
          },
        },
  );
  return { ...base, trafficPolicies };
}

function state(out: TranslateOutput, policy: keyof TranslateOutput["statuses"], destination: string): string | undefined {
  return out.statuses[policy]?.destinations?.[destination]?.state;
}

function httpRoute(out: TranslateOutput, cluster: string): unknown {
  return out.clusters[cluster]?.objects.find((o) => o.kind === "HTTPRoute" && o.metadata.name === "reviews");
}

describe("policies on the copies of a global service", () => {
  it("the engine follows selections and outcomes on every copy, as translate does", () => {
    const engine = new Translator();
    const step = (next: TranslateInput): TranslateOutput => {
      const out = engine.translate(next);
      expect(out).toEqual(translate(next));
      return out;
    };
    let current = input();
    let out = step(current);
    expect(state(out, "TrafficPolicy/reviews-header-cluster-1", "reviews-bookinfo-cluster-1")).toBe("INVALID");
    expect(JSON.stringify(httpRoute(out, "cluster-1"))).not.toContain("x-policy");

    // Selecting the other copy too makes it ACCEPTED on both, with the same routes in each cluster.
    current = selecting(current, "reviews-header-cluster-1", [
      ["cluster-1", "reviews"],
      ["cluster-2", "reviews"],
    ]);
    out = step(current);
    expect(out.statuses["TrafficPolicy/reviews-header-cluster-1"]?.state).toBe("ACCEPTED");
    expect(JSON.stringify(httpRoute(out, "cluster-1"))).toContain("x-policy");
    expect((httpRoute(out, "cluster-1") as { spec: unknown }).spec).toEqual((httpRoute(out, "cluster-2") as { spec: unknown }).spec);

    // cluster-2's copy loses its waypoint: INVALID there (ambient callers), so INVALID on cluster-1's copy too.
    current = withWaypoint(current, "reviews-bookinfo-cluster-2", undefined);
    out = step(current);
    for (const policy of ["TrafficPolicy/reviews-header-cluster-1", "TrafficPolicy/reviews-timeout"] as const) {
      expect(state(out, policy, "reviews-bookinfo-cluster-2")).toBe("INVALID");
      expect(out.statuses[policy]?.destinations?.["reviews-bookinfo-cluster-1"]).toMatchObject({
        state: "INVALID",
        errors: [expect.stringMatching(/^this policy is INVALID on reviews-bookinfo-cluster-2 \(mesh istiod-istio--system-cluster-2, cluster cluster-2\)/)],
      });
    }
    expect(httpRoute(out, "cluster-1")).toBeUndefined();

    // And back.
    current = withWaypoint(current, "reviews-bookinfo-cluster-2", WAYPOINT);
    out = step(current);
    expect(out.statuses["TrafficPolicy/reviews-timeout"]?.state).toBe("ACCEPTED");
    expect(httpRoute(out, "cluster-1")).toBeDefined();

    // One copy left of ratings: a policy on it alone selects every copy there is.
    current = { ...current, destinations: current.destinations.filter((d) => d.metadata.name !== "ratings-bookinfo-cluster-1") };
    out = step(current);
    expect(out.statuses["AccessPolicy/ratings-from-productpage"]?.state).toBe("ACCEPTED");
  });

  it("an AccessPolicy INVALID on one copy is INVALID on the others, and applied on none", () => {
    // ratings bound to a waypoint in cluster-2 only: paths are enforced there, refused on cluster-1's ambient pods.
    const base = withWaypoint(input(), "ratings-bookinfo-cluster-2", WAYPOINT);
    const paths = {
      kind: "AccessPolicy" as const,
      metadata: { name: "ratings-get", generation: 1 },
      spec: {
        sourceSelector: [{ kubeServiceAccountRefs: { serviceAccounts: [{ cluster: "cluster-1", namespace: "bookinfo", name: "productpage-v1" }] } }],
        destinationSelector: [
          { kubeServiceRefs: { services: ["cluster-1", "cluster-2"].map((cluster) => ({ cluster, namespace: "bookinfo", name: "ratings" })) } },
        ],
        allowedPaths: ["/ratings/*"],
      },
    };
    const current = { ...base, accessPolicies: [...base.accessPolicies, paths] } as TranslateInput;
    const engine = new Translator();
    engine.translate(base);
    const out = engine.translate(current);
    expect(out).toEqual(translate(current));
    expect(state(out, "AccessPolicy/ratings-get", "ratings-bookinfo-cluster-1")).toBe("INVALID");
    expect(out.statuses["AccessPolicy/ratings-get"]?.destinations?.["ratings-bookinfo-cluster-2"]).toMatchObject({
      state: "INVALID",
      errors: [expect.stringMatching(/^this policy is INVALID on ratings-bookinfo-cluster-1 /)],
    });
    const waypointPolicy = out.clusters["cluster-2"]?.objects.find((o) => o.kind === "AuthorizationPolicy" && o.metadata.name === "ratings.waypoint");
    expect(JSON.stringify(waypointPolicy ?? {})).not.toContain("/ratings/*");
  });
});

const REFS: [string, string][] = [
  ["cluster-1", "reviews"],
  ["cluster-2", "reviews"],
  ["cluster-1", "ratings"],
  ["cluster-2", "ratings"],
];
const COPIES = REFS.map(([cluster, name]) => `${name}-bookinfo-${cluster}`);

/** One change to the tenant: a policy's selection, a copy's waypoint, or a copy gone or back. */
type Change =
  | { kind: "traffic" | "access"; refs: [string, string][]; paths: boolean }
  | { kind: "waypoint"; destination: string; bound: boolean }
  | { kind: "present"; destination: string; present: boolean };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({ kind: fc.constantFrom("traffic" as const, "access" as const), refs: fc.subarray(REFS), paths: fc.boolean() }),
  fc.record({ kind: fc.constant("waypoint" as const), destination: fc.constantFrom(...COPIES), bound: fc.boolean() }),
  fc.record({ kind: fc.constant("present" as const), destination: fc.constantFrom(...COPIES), present: fc.boolean() }),
);

/** The tenant after `changes`, reusing unchanged objects as a warm loader hands them out. */
class Tenant {
  private readonly base = input();
  private readonly variants = new Map<string, TranslateInput["destinations"][number]>();
  private readonly bound = new Map(this.base.destinations.map((d) => [d.metadata.name, d.spec.waypoint !== undefined]));
  private readonly gone = new Set<string>();
  private traffic = this.base.trafficPolicies[0] as TranslateInput["trafficPolicies"][number];
  private access = this.base.accessPolicies[0] as TranslateInput["accessPolicies"][number];

  apply(c: Change): TranslateInput {
    const services = {
      services: c.kind === "traffic" || c.kind === "access" ? c.refs.map(([cluster, name]) => ({ cluster, namespace: "bookinfo", name })) : [],
    };
    if (c.kind === "traffic") this.traffic = { ...this.traffic, spec: { ...this.traffic.spec, destinationSelector: [{ kubeServiceRefs: services }] } };
    if (c.kind === "access") {
      const { allowedPaths: _, ...spec } = this.access.spec;
      this.access = {
        ...this.access,
        spec: { ...spec, destinationSelector: [{ kubeServiceRefs: services }], ...(c.paths ? { allowedPaths: ["/api/*"] } : {}) },
      };
    }
    if (c.kind === "waypoint") this.bound.set(c.destination, c.bound);
    if (c.kind === "present" && c.present) this.gone.delete(c.destination);
    if (c.kind === "present" && !c.present) this.gone.add(c.destination);
    const destinations = this.base.destinations.filter((d) => !this.gone.has(d.metadata.name)).map((d) => this.variant(d));
    return {
      ...this.base,
      destinations,
      trafficPolicies: [this.traffic, ...this.base.trafficPolicies.slice(1)],
      accessPolicies: [this.access, ...this.base.accessPolicies.slice(1)],
    };
  }

  private variant(d: TranslateInput["destinations"][number]): TranslateInput["destinations"][number] {
    const bound = this.bound.get(d.metadata.name) === true;
    const key = `${d.metadata.name}/${bound}`;
    let v = this.variants.get(key);
    if (v === undefined) {
      const { waypoint: _, ...spec } = d.spec;
      v = { ...d, spec: bound ? { ...spec, waypoint: WAYPOINT } : spec };
      this.variants.set(key, v);
    }
    return v;
  }
}

describe("policies on the copies of a global service, drawn at random", () => {
  it("the engine gives after every change what translate gives", () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 8 }), (changes) => {
        const tenant = new Tenant();
        const engine = new Translator();
        for (const c of changes) {
          const next = tenant.apply(c);
          expect(engine.translate(next)).toEqual(translate(next));
        }
      }),
      { numRuns: 40 },
    );
  });
});
