/**
 * docs/resources.md#trafficpolicy: every TrafficPolicy feature the schema accepts is translated for
 * Istio by exactly one decorator, and for OSM either honoured or refused with an error naming it —
 * never accepted and ignored. The features are read from the zod schema itself, so a field added
 * there is checked here without anyone remembering to list it.
 */
import { describe, expect, it } from "vitest";
import { type Destination, type Mesh, type StoredResource, type TrafficPolicyFeatures, trafficPolicyFeatures } from "../../api/index";
import { type Feature, ROUTE_DECORATORS, TRAFFIC_POLICY_DECORATORS } from "../istio/decorators/index";
import { OSM_FEATURES } from "../osm/unsupported";
import { translate } from "../translate";
import type { TranslateInput } from "../types";

const FEATURES = Object.keys(trafficPolicyFeatures.shape) as Feature[];
const CLAIMS = [...ROUTE_DECORATORS, ...TRAFFIC_POLICY_DECORATORS].map((d) => d.feature);

interface ServiceRef {
  cluster: string;
  namespace: string;
  name: string;
}

/**
 * One valid value per feature, each different from what the output holds without it (mtls DISABLE,
 * not the ISTIO_MUTUAL default). trafficShift and mirror send to the destination itself, which both
 * meshes can express. Typed over every feature, so a new one does not compile until it has a sample.
 */
function samples(self: ServiceRef): { readonly [F in Feature]-?: NonNullable<TrafficPolicyFeatures[F]> } {
  return {
    trafficShift: { destinations: [{ kubeService: self, weight: 1 }] },
    faultInjection: { abort: { httpStatus: 503 }, percentage: 10 },
    requestTimeout: "3s",
    retries: { attempts: 2 },
    corsPolicy: { allowMethods: ["GET"] },
    mirror: { kubeService: self, percentage: 5 },
    headerManipulation: { removeRequestHeaders: ["x-debug"] },
    outlierDetection: { consecutiveErrors: 3 },
    mtls: { istio: { tlsMode: "DISABLE" } },
    connectionPool: { tcp: { maxConnections: 10 } },
    loadBalancer: { simple: "RANDOM" },
  };
}

function mesh(type: "istio" | "osm", cluster: string): Mesh {
  const istio = { trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: true, gateways: [] };
  return {
    kind: "Mesh",
    metadata: { name: `${type}-${cluster}`, cluster },
    spec: { type, cluster, namespace: `${type}-system`, version: type === "istio" ? "1.24.1" : "1.2.4", ...(type === "istio" ? { istio } : {}) },
  };
}

const destinationName = (ref: ServiceRef) => `${ref.name}-${ref.namespace}-${ref.cluster}`;

function destination(ref: ServiceRef, meshName: string): Destination {
  return {
    kind: "Destination",
    metadata: { name: destinationName(ref), cluster: ref.cluster },
    spec: {
      ...ref,
      mesh: meshName,
      labels: {},
      selector: { app: ref.name },
      ports: [{ name: "http", port: 8080, protocol: "TCP" }],
      subsets: {},
      endpoints: [],
      workloads: [],
    },
  };
}

const ISTIO_SERVICE = { cluster: "istio-cluster", namespace: "shop", name: "reviews" };
const OSM_SERVICE = { cluster: "osm-cluster", namespace: "shop", name: "bookstore" };

/** One Istio and one OSM cluster, each with one service, and `policy` (if any) selecting `target`. */
function world(target: ServiceRef, policy: TrafficPolicyFeatures | undefined): TranslateInput {
  const meshes = [mesh("istio", ISTIO_SERVICE.cluster), mesh("osm", OSM_SERVICE.cluster)];
  const createdAt = "2024-01-01T00:00:00Z";
  const stored: StoredResource<"TrafficPolicy"> = {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name: "p", uid: "p", generation: 1, resourceVersion: "1", createdAt, updatedAt: createdAt },
    // Parsed, so a sample the API would refuse fails here instead of testing something unreachable.
    spec: { destinationSelector: [{ kubeServiceRefs: { services: [target] } }], policy: trafficPolicyFeatures.parse(policy ?? {}) },
    status: { observedGeneration: 0, state: "PENDING" },
  };
  return {
    tenant: "t",
    clusters: [ISTIO_SERVICE.cluster, OSM_SERVICE.cluster],
    meshes,
    workloads: [],
    destinations: [destination(ISTIO_SERVICE, "istio-istio-cluster"), destination(OSM_SERVICE, "osm-osm-cluster")],
    virtualMeshes: [],
    trafficPolicies: policy === undefined ? [] : [stored],
    accessPolicies: [],
  };
}

/**
 * What a policy with only `feature` does to `target`: the policy's status there, and whether the
 * target's cluster gets different objects than without the policy.
 */
function apply(feature: Feature, target: ServiceRef) {
  const only = { [feature]: samples(target)[feature] } as TrafficPolicyFeatures;
  const before = translate(world(target, undefined)).clusters[target.cluster]?.hash;
  const out = translate(world(target, only));
  const status = out.statuses["TrafficPolicy/p"];
  return { state: status?.state, there: status?.destinations?.[destinationName(target)], changed: out.clusters[target.cluster]?.hash !== before };
}

describe("the schema's features", () => {
  it("are the ones the samples cover (the list this file checks is not empty or stale)", () => {
    expect(FEATURES).toContain("requestTimeout");
    expect(Object.keys(samples(ISTIO_SERVICE)).sort()).toEqual([...FEATURES].sort());
  });
});

describe("Istio: each feature has exactly one decorator, and it shows in the output", () => {
  it.each(FEATURES)("%s is claimed by exactly one decorator", (feature) => {
    expect(CLAIMS.filter((c) => c === feature)).toEqual([feature]);
  });

  it("no two decorators claim the same feature, and none claims one the schema lacks", () => {
    expect(CLAIMS.filter((c, i) => CLAIMS.indexOf(c) !== i)).toEqual([]);
    expect(CLAIMS.filter((c) => !FEATURES.includes(c))).toEqual([]);
  });

  it.each(FEATURES)("%s alone is ACCEPTED and changes what the cluster gets", (feature) => {
    const { state, there, changed } = apply(feature, ISTIO_SERVICE);
    expect([state, there]).toEqual(["ACCEPTED", { state: "ACCEPTED", acceptanceOrder: 1 }]);
    expect(changed).toBe(true);
  });
});

describe("OSM: each feature is honoured or refused by name", () => {
  it.each(FEATURES)("%s is decided", (feature) => {
    expect(OSM_FEATURES[feature]).toBeDefined();
  });

  it.each(FEATURES)("%s alone is either ACCEPTED and changes the output, or INVALID naming it", (feature) => {
    const support = OSM_FEATURES[feature];
    const { state, there, changed } = apply(feature, OSM_SERVICE);
    if (support === "supported") {
      expect([state, there]).toEqual(["ACCEPTED", { state: "ACCEPTED", acceptanceOrder: 1 }]);
      expect(changed).toBe(true);
    } else {
      expect([state, there]).toEqual(["INVALID", { state: "INVALID", errors: [`OSM (SMI) cannot express ${support.unsupported} (${feature})`] }]);
      expect(changed).toBe(false);
    }
  });
});
