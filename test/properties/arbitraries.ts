/**
 * Random but valid tenants for property tests, in the golden description format. Pools are small
 * on purpose: with three services, two namespaces and two timeout values, policies collide, refs
 * miss, meshes are claimed twice and federation crosses clusters often enough to exercise
 * conflicts, invalid refs and acceptance order in every run.
 */
import * as fc from "fast-check";
import { type TrafficPolicyFeatures, discoveredName } from "@meshplane/core";
import type { TenantDescription } from "../golden/tenant";

const CLUSTERS = ["c1", "c2", "c3"] as const;
const NAMESPACES = ["ns-a", "ns-b"] as const;
const SERVICES = ["svc-a", "svc-b", "svc-c"] as const;
const PORTS = [
  { name: "http", port: 80 },
  { name: "grpc", port: 90 },
  { name: "tcp-db", port: 70 },
];

type Description = TenantDescription;
type ClusterDescription = Description["clusters"][string];

const namespace = fc.constantFrom(...NAMESPACES);
const service = fc.constantFrom(...SERVICES);
// Mostly registered clusters; now and then one that is not, so refs sometimes miss.
const clusterName = fc.oneof({ arbitrary: fc.constantFrom(...CLUSTERS), weight: 12 }, { arbitrary: fc.constant("c9"), weight: 1 });
const serviceRef = fc.record({ cluster: clusterName, namespace, name: service });
const subset = fc.option(fc.record({ version: fc.oneof({ arbitrary: fc.constantFrom("v1", "v2"), weight: 8 }, { arbitrary: fc.constant("v9"), weight: 1 }) }), {
  nil: undefined,
  freq: 2,
});

/** Istio's ambient data plane in a cluster: none, ztunnel alone, or ztunnel and a waypoint for services in ns-a. */
type Ambient = "no" | "ztunnel" | "waypoint";
const WAYPOINT = { name: "wp", namespace: "ns-a" };
/** What discovery reads for ambient multicluster (docs/ambient.md#what-discovery-reads-for-it); undefined: an older agent's report. */
type MultiNetwork = { enabled: boolean | "unknown"; network?: string } | undefined;

function istioMesh(
  cluster: string,
  revision: string | undefined,
  version: string,
  trustDomain: string,
  aliases: string[],
  gateway: boolean,
  ambient: Ambient = "no",
  multiNetwork?: MultiNetwork,
) {
  return {
    ...(ambient === "no" ? {} : { ambient: true, ...(multiNetwork ? { multiNetwork } : {}) }),
    ...(ambient === "waypoint" ? { waypoints: [{ ...WAYPOINT, for: "service" as const }] } : {}),
    ...(revision ? { revision, istiodServiceAccount: `istiod-${revision}` } : {}),
    version,
    trustDomain,
    ...(aliases.length > 0 ? { trustDomainAliases: aliases } : {}),
    gateways: gateway
      ? [
          {
            kind: "eastwest" as const,
            name: "ew",
            namespace: "istio-system",
            selector: { istio: "eastwestgateway" },
            tlsPortName: "tls",
            externalPort: 15443,
            containerPort: 15443,
            addresses: [{ ip: `34.0.0.${cluster.length}` }],
          },
        ]
      : [],
  };
}

const cluster: fc.Arbitrary<[string, ClusterDescription]> = fc
  .record({
    name: fc.constantFrom(...CLUSTERS),
    kind: fc.constantFrom("istio", "istio", "istio", "istio", "istio", "revisions", "osm"),
    version: fc.constantFrom("1.21.0", "1.24.1"),
    trustDomain: fc.constantFrom("cluster.local", "td-x"),
    // Meshes of different trust domains refuse each other's callers unless aliased.
    aliases: fc.constantFrom<string[]>([], [], ["td-x"], ["cluster.local"]),
    gateway: fc.oneof({ arbitrary: fc.constant(true), weight: 4 }, { arbitrary: fc.constant(false), weight: 1 }),
    // Mostly sidecars; in an ambient cluster its workloads are ambient, sidecar or (now and then) outside the mesh.
    ambient: fc.constantFrom<Ambient>("no", "no", "no", "ztunnel", "waypoint"),
    // Its own network, one another cluster may share, none, the flag off or unknown, or not reported.
    multiNetwork: fc.constantFrom<MultiNetwork | "own">(
      "own",
      "own",
      { enabled: true, network: "shared" },
      { enabled: true },
      { enabled: false, network: "n-off" },
      { enabled: "unknown" },
      undefined,
    ),
    workloads: fc.uniqueArray(fc.tuple(namespace, service, fc.constantFrom("v1", "v2"), fc.constantFrom("ambient", "ambient", "sidecar", "none")), {
      minLength: 3,
      maxLength: 10,
      selector: (t) => t.slice(0, 3).join("/"),
    }),
    services: fc.uniqueArray(fc.record({ namespace, name: service, ports: fc.shuffledSubarray(PORTS, { minLength: 1 }) }), {
      minLength: 4,
      maxLength: 6,
      selector: (s) => `${s.namespace}/${s.name}`,
    }),
  })
  .map(({ name, kind, version, trustDomain, aliases, gateway, ambient: drawn, multiNetwork, workloads, services }) => {
    const ambient = kind === "istio" && version === "1.24.1" ? drawn : "no";
    const meshes =
      kind === "osm"
        ? [{ type: "osm" as const, version: "1.2.4" }]
        : kind === "revisions"
          ? [istioMesh(name, "1-21", "1.21.0", trustDomain, aliases, gateway), istioMesh(name, "1-24", "1.24.1", trustDomain, aliases, gateway)]
          : [
              istioMesh(
                name,
                undefined,
                version,
                trustDomain,
                aliases,
                gateway,
                ambient,
                multiNetwork === "own" ? { enabled: true, network: `net-${name}` } : multiNetwork,
              ),
            ];
    return [
      name,
      {
        meshes,
        workloads: workloads.map(([ns, svc, v, dataPlane]) => ({
          name: `${svc}-${v}`,
          namespace: ns,
          labels: { app: svc, version: v },
          serviceAccount: svc,
          ...(ambient === "no" ? {} : { dataPlane }),
        })),
        services: services.map((s) => (ambient === "waypoint" && s.namespace === WAYPOINT.namespace ? { ...s, waypoint: WAYPOINT } : s)),
      },
    ];
  });

const destinationSelector = fc.oneof(
  { arbitrary: fc.record({ kubeServiceRefs: fc.record({ services: fc.array(serviceRef, { minLength: 1, maxLength: 2 }) }) }), weight: 1 },
  {
    arbitrary: fc.record({
      kubeServiceMatcher: fc.record(
        { namespaces: fc.array(namespace, { maxLength: 1 }), clusters: fc.array(clusterName, { maxLength: 2 }), labels: fc.constant({}) },
        { requiredKeys: [] },
      ),
    }),
    weight: 3,
  },
);

const featureValues = {
  requestTimeout: fc.constantFrom("1s", "2s"),
  retries: fc.record({ attempts: fc.constantFrom(1, 2) }),
  faultInjection: fc.constant({ abort: { httpStatus: 503 }, percentage: 10 }),
  trafficShift: fc.record({
    destinations: fc.array(
      fc.record({
        kubeService: fc.record({ cluster: clusterName, namespace, name: service, subset }, { requiredKeys: ["cluster", "namespace", "name"] }),
        weight: fc.integer({ min: 1, max: 100 }),
      }),
      { minLength: 1, maxLength: 2 },
    ),
  }),
  mirror: fc.record({ kubeService: serviceRef }),
  corsPolicy: fc.record({ allowMethods: fc.shuffledSubarray(["GET", "POST"] as ("GET" | "POST")[], { minLength: 1 }) }),
  headerManipulation: fc.constant({ removeRequestHeaders: ["x-a"] as string[] }),
  outlierDetection: fc.record({ consecutiveErrors: fc.constantFrom(1, 2) }),
  connectionPool: fc.record({ tcp: fc.record({ maxConnections: fc.constantFrom(1, 2) }) }),
  loadBalancer: fc.record({ simple: fc.constantFrom("RANDOM" as const, "ROUND_ROBIN" as const), localityFailover: fc.boolean() }, { requiredKeys: [] }),
  mtls: fc.record({ istio: fc.record({ tlsMode: fc.constantFrom("ISTIO_MUTUAL" as const, "DISABLE" as const) }) }),
} satisfies { [K in keyof Required<TrafficPolicyFeatures>]: fc.Arbitrary<unknown> };
type FeatureName = keyof typeof featureValues;

/** One to three features per policy: realistic, and few enough that OSM rejections do not drown the rest. */
const features = fc
  .shuffledSubarray(Object.keys(featureValues) as FeatureName[], { minLength: 1, maxLength: 3 })
  .chain((names) =>
    fc.record(Object.fromEntries(names.map((n) => [n, featureValues[n]])) as { [K in FeatureName]: (typeof featureValues)[K] }, { requiredKeys: [] }),
  );

const workloadSelector = fc.record({
  kubeWorkloadMatcher: fc.record(
    {
      labels: fc.record({ app: service }),
      namespaces: fc.array(namespace, { minLength: 1, maxLength: 2 }),
      clusters: fc.array(clusterName, { minLength: 1, maxLength: 2 }),
    },
    { requiredKeys: [] },
  ),
});

const matcher = fc.record(
  {
    uri: fc.oneof(fc.record({ prefix: fc.constantFrom("/a", "/a/b") }), fc.record({ exact: fc.constant("/x") })),
    method: fc.constantFrom("GET" as const, "POST" as const),
  },
  { requiredKeys: [] },
);

const trafficPolicySpec = fc.record(
  {
    sourceSelector: fc.array(workloadSelector, { maxLength: 2 }),
    destinationSelector: fc.array(destinationSelector, { maxLength: 2 }),
    httpRequestMatchers: fc.array(matcher, { maxLength: 2 }),
    policy: features,
  },
  { requiredKeys: ["policy"] },
);

const identitySelector = fc.oneof(
  fc.record({
    kubeIdentityMatcher: fc.record(
      { namespaces: fc.array(namespace, { maxLength: 2 }), clusters: fc.array(clusterName, { maxLength: 2 }) },
      { requiredKeys: [] },
    ),
  }),
  fc.record({ kubeServiceAccountRefs: fc.record({ serviceAccounts: fc.array(serviceRef, { minLength: 1, maxLength: 2 }) }) }),
);

const accessPolicySpec: fc.Arbitrary<NonNullable<Description["accessPolicies"]>[number]["spec"]> = fc.record(
  {
    sourceSelector: fc.array(identitySelector, { maxLength: 2 }),
    destinationSelector: fc.array(destinationSelector, { maxLength: 2 }),
    allowedPaths: fc.constant(["/a/*"] as string[]),
    allowedMethods: fc.constant(["GET"] as "GET"[]),
    allowedPorts: fc.constant([80] as number[]),
  },
  { requiredKeys: [] },
);

/** Mesh names for VirtualMeshes: mostly meshes that exist in the drawn clusters, sometimes not. */
function realMeshNames(clusters: readonly [string, ClusterDescription][]): { in: string; name: string }[] {
  return clusters.flatMap(([c, d]) =>
    (d.meshes ?? []).map((m) => ({
      in: c,
      name:
        m.type === "osm"
          ? discoveredName({ name: "osm-controller", namespace: "osm-system", cluster: c })
          : discoveredName({ name: m.revision ? `istiod-${m.revision}` : "istiod", namespace: "istio-system", cluster: c }),
    })),
  );
}

function meshNames(clusters: readonly [string, ClusterDescription][]): fc.Arbitrary<string> {
  const real = realMeshNames(clusters).map((m) => m.name);
  return fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 8 }, { arbitrary: fc.constantFrom("istiod-istio--system-c9", "nope"), weight: 1 });
}

type VirtualMeshSpec = NonNullable<Description["virtualMeshes"]>[number]["spec"];
type FederationSelectors = NonNullable<NonNullable<VirtualMeshSpec["federation"]>["selectors"]>;

const virtualMeshSpec = (meshName: fc.Arbitrary<string>): fc.Arbitrary<VirtualMeshSpec> =>
  fc.record(
    {
      meshes: fc.uniqueArray(meshName, { minLength: 2, maxLength: 4 }).map((names) => names.map((name) => ({ name }))),
      mtlsConfig: fc.constant({ shared: {} }),
      federation: fc.record(
        {
          selectors: fc.oneof(
            { arbitrary: fc.constant<FederationSelectors>([{}]), weight: 2 },
            {
              arbitrary: fc.array(
                fc.record(
                  {
                    destinationSelectors: fc.array(destinationSelector, { maxLength: 1 }),
                    meshes: fc.array(meshName, { maxLength: 2 }).map((n) => n.map((name) => ({ name }))),
                  },
                  { requiredKeys: [] },
                ),
                { minLength: 1, maxLength: 2 },
              ),
              weight: 3,
            },
          ),
        },
        { requiredKeys: [] },
      ),
      globalAccessPolicy: fc.constantFrom("ENABLED" as const, "DISABLED" as const),
      // The output API: unset (the default by data plane), or chosen, also for meshes whose Istio cannot
      // serve it; waypoints on demand, or not.
      routing: fc
        .record(
          { api: fc.constantFrom("ISTIO" as const, "GATEWAY_API" as const), waypoints: fc.constantFrom("MANUAL" as const, "ON_DEMAND" as const) },
          { requiredKeys: [] },
        )
        .filter((r) => r.api !== undefined || r.waypoints !== undefined),
    },
    { requiredKeys: ["meshes"] },
  );

/** Previous acceptance numbers some policies carry, as if an earlier translation had run. */
const previousStatus = fc.option(
  fc.dictionary(
    fc.tuple(service, namespace, fc.constantFrom(...CLUSTERS)).map(([s, n, c]) => `${s}-${n}-${c}`),
    fc.record({ state: fc.constantFrom("ACCEPTED" as const, "INVALID" as const), acceptanceOrder: fc.integer({ min: 1, max: 4 }) }),
    { maxKeys: 2 },
  ),
  { nil: undefined },
);

function named<T>(prefix: string, specs: T[], statuses: (Record<string, { state: "ACCEPTED" | "INVALID"; acceptanceOrder: number }> | undefined)[]) {
  return specs.map((spec, i) => {
    const destinations = statuses[i];
    return {
      name: `${prefix}-${i}`,
      createdAt: new Date(Date.UTC(2024, 0, 1, 0, (i * 7) % 5)).toISOString(),
      spec,
      ...(destinations ? { status: { observedGeneration: 1, state: "ACCEPTED" as const, destinations } } : {}),
    };
  });
}

/**
 * Points refs at registered clusters: clusters are drawn independently, and a ref to a cluster
 * that was not drawn would make most policies INVALID. Refs to `c9` stay, as the deliberate misses.
 */
function retarget<T>(value: T, registered: readonly string[]): T {
  if (Array.isArray(value)) return value.map((v: unknown) => retarget(v, registered)) as T;
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) out[key] = retarget(member, registered);
  const target = out.cluster;
  if (typeof target === "string" && "namespace" in out && target !== "c9" && !registered.includes(target)) {
    out.cluster = registered[Number(target.slice(1)) % registered.length];
  }
  return out as T;
}

/** A random valid tenant description. */
export const tenant: fc.Arbitrary<Description> = fc
  .oneof(
    { arbitrary: fc.uniqueArray(cluster, { minLength: 2, maxLength: 3, selector: ([name]) => name }), weight: 4 },
    { arbitrary: fc.uniqueArray(cluster, { minLength: 1, maxLength: 1, selector: ([name]) => name }), weight: 1 },
  )
  .chain((clusters) =>
    fc.record({
      clusters: fc.constant(clusters),
      virtualMeshes: fc.oneof(
        { arbitrary: fc.array(virtualMeshSpec(meshNames(clusters)), { minLength: 1, maxLength: 1 }), weight: 3 },
        { arbitrary: fc.array(virtualMeshSpec(meshNames(clusters)), { maxLength: 2 }), weight: 2 },
      ),
      trafficPolicies: fc.array(fc.tuple(trafficPolicySpec, previousStatus), { maxLength: 7 }),
      accessPolicies: fc.array(accessPolicySpec, { maxLength: 3 }),
      // Shared trust: no CA yet, or a CA whose intermediates the agents of every or only some clusters installed.
      issued: fc.constantFrom("none" as const, "all" as const, "all" as const, "some" as const),
    }),
  )
  .map((t) =>
    retarget(
      t,
      t.clusters.map(([name]) => name),
    ),
  )
  .map((t) => ({
    tenant: "acme",
    clusters: Object.fromEntries(t.clusters),
    virtualMeshes: named("vm", t.virtualMeshes, []),
    trafficPolicies: named(
      "tp",
      t.trafficPolicies.map(([spec]) => spec),
      t.trafficPolicies.map(([, status]) => status),
    ),
    accessPolicies: named("ap", t.accessPolicies, []),
    ...sharedTrust(t.issued, t.virtualMeshes.length, t.clusters),
  }));

const ROOT = "sha256:d0b6b951d313294318002dfa2c33f529a0d58113d36dc35e0a83bb1e0f8638ec";

/** The VirtualMeshes' CAs and the agents' certificate reports: `some` leaves the first cluster's meshes without one. */
function sharedTrust(
  issued: "none" | "all" | "some",
  virtualMeshes: number,
  clusters: readonly [string, ClusterDescription][],
): Pick<Description, "trust" | "certificates"> {
  if (issued === "none") return {};
  const trust = Object.fromEntries(
    Array.from({ length: virtualMeshes }, (_, i) => [
      `vm-${i}`,
      { issuer: ROOT, rootFingerprint: ROOT, rootNotAfter: "2034-01-01T00:00:00Z", trustBundle: [ROOT] },
    ]),
  );
  const certificates: NonNullable<Description["certificates"]> = {};
  for (const mesh of realMeshNames(clusters)) {
    if (issued === "some" && mesh.in === clusters[0]?.[0]) continue;
    (certificates[mesh.in] ??= []).push({ mesh: mesh.name, state: "issued", issuer: ROOT, trustBundle: [ROOT], notAfter: "2034-01-01T00:00:00Z" });
  }
  return { trust, certificates };
}
