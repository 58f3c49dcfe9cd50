/**
 * No name wedges a tenant (docs/api.md, "Discovered names"): whatever clusters, namespaces and
 * Kubernetes names a tenant's agents report — names that joining alone would merge, dotted names,
 * names at every length limit, and, as a store written before the names were injective might hold,
 * two clusters' objects under one name — translation completes, every discovered name is a DNS-1123
 * label, and the objects that still collide are reported on what refers to them.
 */
import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DNS_LABEL, type Destination, type Mesh, accessPolicySpec, assignDiscoveredNames, discoveredName, trafficPolicySpec } from "@meshplane/core";
import { translate, type TranslateInput } from "../../packages/core/src/translate/index";
import { buildInput, type TenantDescription } from "../golden/tenant";

const RUNS = Number(process.env.PROPERTY_RUNS ?? 150);

// Pools chosen so that joined names collide: east/us-east, shop-us/shop, api/api-shop/api.shop.
const CLUSTERS = ["east", "us-east", "us", "a-b", "a", "b-c", "c".repeat(40)];
const NAMESPACES = ["shop", "shop-us", "us", "istio-system", "b", "a-b", "n".repeat(63)];
const NAMES = ["api", "api-shop", "api.shop", "shop-api", "b", "a-b", "s".repeat(63), "x".repeat(40) + ".y"];

const service = fc.record({ name: fc.constantFrom(...NAMES.filter((n) => !n.includes("."))), namespace: fc.constantFrom(...NAMESPACES) });
const workload = fc.record({ name: fc.constantFrom(...NAMES), namespace: fc.constantFrom(...NAMESPACES) });

const description: fc.Arbitrary<TenantDescription> = fc
  .uniqueArray(
    fc.record({
      name: fc.constantFrom(...CLUSTERS),
      meshNamespace: fc.constantFrom("istio-system", "istio", "mesh-a"),
      services: fc.uniqueArray(service, { minLength: 1, maxLength: 6, selector: (s) => `${s.namespace}/${s.name}` }),
      workloads: fc.uniqueArray(workload, { maxLength: 6, selector: (w) => `${w.namespace}/${w.name}` }),
    }),
    { minLength: 1, maxLength: 4, selector: (c) => c.name },
  )
  .map((clusters) => {
    const meshName = (c: (typeof clusters)[number]) => discoveredName({ name: "istiod", namespace: c.meshNamespace, cluster: c.name });
    return {
      clusters: Object.fromEntries(
        clusters.map((c) => [
          c.name,
          {
            meshes: [{ namespace: c.meshNamespace }],
            services: c.services.map((s) => ({ ...s, selector: { app: s.name.slice(0, 63) } })),
            workloads: c.workloads.map((w) => ({ ...w, labels: { app: w.name.replace(".", "-").slice(0, 63) } })),
          },
        ]),
      ),
      virtualMeshes: [{ name: "all", spec: { meshes: clusters.map((c) => ({ name: meshName(c) })), federation: { selectors: [{}] } } }],
      trafficPolicies: [
        { name: "everywhere", spec: trafficPolicySpec.parse({ policy: { requestTimeout: "3s" } }) },
        {
          name: "by-ref",
          spec: trafficPolicySpec.parse({
            destinationSelector: [{ kubeServiceRefs: { services: clusters.flatMap((c) => c.services.slice(0, 1).map((s) => ({ ...s, cluster: c.name }))) } }],
            policy: { retries: { attempts: 2 } },
          }),
        },
      ],
    };
  });

// Service names equal to the names objects are generated under, were they joined with `-`.
const LOOKALIKES = ["api", "api-shop", "api-waypoint", "api-shop-callers", "global-access-control", "global-access-control-waypoints", "waypoint"];
const LOOKALIKE_NAMESPACES = ["shop", "istio-system"];

/** An ambient tenant with a waypoint, AccessPolicies on everything, callers-scoped TrafficPolicies and globalAccessPolicy ENABLED. */
const lookalikes: fc.Arbitrary<TenantDescription> = fc
  .record({
    version: fc.constantFrom("1.24.3", "1.26.2"),
    services: fc.uniqueArray(
      fc.record({ name: fc.constantFrom(...LOOKALIKES), namespace: fc.constantFrom(...LOOKALIKE_NAMESPACES), behindWaypoint: fc.boolean() }),
      { minLength: 1, maxLength: 8, selector: (s) => `${s.namespace}/${s.name}` },
    ),
  })
  .map(({ version, services }) => ({
    clusters: {
      east: {
        meshes: [{ ambient: true, version, waypoints: [{ name: "waypoint", namespace: "shop", for: "service" as const }] }],
        workloads: services.map((s) => ({ name: s.name, namespace: s.namespace, labels: { app: s.name }, dataPlane: "ambient" as const })),
        services: services.map((s) => ({
          name: s.name,
          namespace: s.namespace,
          ...(s.behindWaypoint ? { waypoint: { name: "waypoint", namespace: "shop" } } : {}),
        })),
      },
    },
    virtualMeshes: [{ name: "all", spec: { meshes: [{ name: "istiod-istio--system-east" }], globalAccessPolicy: "ENABLED" as const } }],
    trafficPolicies: [
      { name: "everywhere", spec: trafficPolicySpec.parse({ policy: { outlierDetection: { consecutiveErrors: 7 } } }) },
      {
        name: "for-callers",
        spec: trafficPolicySpec.parse({
          sourceSelector: [{ kubeWorkloadMatcher: { namespaces: LOOKALIKE_NAMESPACES } }],
          policy: { outlierDetection: { consecutiveErrors: 3 } },
        }),
      },
    ],
    accessPolicies: [
      {
        name: "from-shop",
        spec: accessPolicySpec.parse({ sourceSelector: [{ kubeIdentityMatcher: { namespaces: ["shop"] } }], allowedPorts: [9080] }),
      },
    ],
  }));

/** The same tenant as a store might hold it from before names were injective: a second cluster's copies under the first's names. */
function withCollisions(input: TranslateInput): TranslateInput {
  const [first, second] = input.clusters;
  if (first === undefined || second === undefined) return input;
  const steal = <T extends Mesh | Destination>(item: T): T => ({
    ...item,
    metadata: { ...item.metadata, cluster: second },
    spec: { ...item.spec, cluster: second },
  });
  return {
    ...input,
    meshes: [...input.meshes, ...input.meshes.filter((m) => m.spec.cluster === first).map(steal)],
    destinations: [...input.destinations, ...input.destinations.filter((d) => d.spec.cluster === first).map(steal)],
  };
}

describe("discovered names never stop a tenant's translation", () => {
  it("translates any mix of clusters, namespaces and names, under names that are labels and unique", () => {
    fc.assert(
      fc.property(description, (d) => {
        const input = buildInput(d);
        const names = [...input.meshes, ...input.destinations].map((o) => o.metadata.name);
        for (const name of names) expect(name).toMatch(DNS_LABEL);
        expect(new Set(names.filter((_, i) => i < input.meshes.length)).size).toBe(input.meshes.length);
        expect(new Set(input.destinations.map((o) => o.metadata.name)).size).toBe(input.destinations.length);
        const out = translate(input);
        expect(Object.keys(out.clusters).sort()).toEqual([...input.clusters].sort());
        expect(out.statuses["TrafficPolicy/everywhere"]?.state).not.toBe("INVALID");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("translates a tenant whose stored objects collide, and says so where they are referred to", () => {
    fc.assert(
      fc.property(description, (d) => {
        const input = withCollisions(buildInput(d));
        const out = translate(input);
        expect(Object.keys(out.clusters).sort()).toEqual([...input.clusters].sort());
        if (input.clusters.length > 1) {
          const vm = out.statuses["VirtualMesh/all"];
          const first = input.meshes[0]?.metadata.name as string;
          expect(vm?.meshes?.[first]?.errors?.join(" ")).toMatch(/is ambiguous: 2 discovered objects share the name/);
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("translates a tenant whose services are named like the objects generated for others", () => {
    fc.assert(
      fc.property(lookalikes, (d) => {
        const input = buildInput(d);
        const out = translate(input);
        expect(Object.keys(out.clusters)).toEqual(["east"]);
        expect(out.statuses["AccessPolicy/from-shop"]?.state).toBe("ACCEPTED");
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it("gives an agent's report the control plane's names, whatever names the agent chose", () => {
    fc.assert(
      fc.property(description, fc.string({ minLength: 1, maxLength: 253 }), (d, chosen) => {
        const input = buildInput(d);
        const cluster = input.clusters[0] as string;
        const own = (o: { spec: { cluster: string } }) => o.spec.cluster === cluster;
        const report = { meshes: input.meshes.filter(own), workloads: input.workloads.filter(own), destinations: input.destinations.filter(own) };
        // The agent renames its mesh; references follow, so the report holds together.
        const renamed = {
          meshes: report.meshes.map((m) => ({ ...m, metadata: { ...m.metadata, name: chosen } })),
          workloads: report.workloads.map((w) => ({ ...w, spec: { ...w.spec, mesh: chosen } })),
          destinations: report.destinations.map((x) => ({ ...x, spec: { ...x.spec, mesh: chosen } })),
        };
        expect(assignDiscoveredNames(renamed, cluster)).toEqual(report);
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
