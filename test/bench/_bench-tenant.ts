/**
 * The benchmark tenant (docs/translation.md, "Performance"): 100 clusters × 100 services, three workloads
 * per service (v1/v2/v3), 1,000 TrafficPolicies, 500 AccessPolicies and one VirtualMesh with
 * shared trust, global access and federation of everything to every mesh. Built directly as
 * TranslateInput (no schema parse) so setup stays out of the measured time and memory.
 */
import type { Destination, Mesh, StoredResource, Workload } from "../../packages/core/src/api/index";
import type { TranslateInput } from "../../packages/core/src/translate/index";

export interface BenchShape {
  clusters: number;
  servicesPerCluster: number;
  trafficPolicies: number;
  accessPolicies: number;
}

export const FULL_SHAPE: BenchShape = { clusters: 100, servicesPerCluster: 100, trafficPolicies: 1000, accessPolicies: 500 };

/**
 * The shape a bench's arguments ask for: `[clusters] [servicesPerCluster] [trafficPolicies]`, each
 * defaulting to FULL_SHAPE's (`clusters` to `defaultClusters`); AccessPolicies are half the TrafficPolicies.
 */
export function shapeOf(args: readonly string[], defaultClusters = FULL_SHAPE.clusters): BenchShape {
  const [clusters, services, policies] = args.map(Number);
  const trafficPolicies = policies ?? FULL_SHAPE.trafficPolicies;
  return {
    clusters: clusters ?? defaultClusters,
    servicesPerCluster: services ?? FULL_SHAPE.servicesPerCluster,
    trafficPolicies,
    accessPolicies: Math.floor(trafficPolicies / 2),
  };
}

const pad = (n: number, width = 3) => String(n).padStart(width, "0");
const NAMESPACES_PER_CLUSTER = 10;
const CREATED = "2024-01-01T00:00:00.000Z";

function mesh(cluster: string, i: number): Mesh {
  return {
    kind: "Mesh",
    metadata: { name: `istiod-istio--system-${cluster}`, cluster },
    spec: {
      type: "istio",
      cluster,
      namespace: "istio-system",
      version: "1.24.1",
      istio: {
        trustDomain: `${cluster}.local`,
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: true,
        gateways: [
          {
            kind: "eastwest",
            name: "istio-eastwestgateway",
            namespace: "istio-system",
            selector: { istio: "eastwestgateway" },
            tlsPortName: "tls",
            externalPort: 15443,
            containerPort: 15443,
            addresses: [{ ip: `34.${Math.floor(i / 250)}.${i % 250}.1` }],
          },
        ],
      },
    },
  };
}

function service(cluster: string, c: number, s: number): { destination: Destination; workloads: Workload[] } {
  const name = `svc-${pad(s)}`;
  const namespace = `ns-${pad(s % NAMESPACES_PER_CLUSTER, 2)}`;
  const meshName = `istiod-istio--system-${cluster}`;
  const workloads = ["v1", "v2", "v3"].map(
    (version): Workload => ({
      kind: "Workload",
      metadata: { name: `${name}-${version}-${namespace}-${cluster}-deployment`, cluster },
      spec: { kind: "Deployment", name: `${name}-${version}`, namespace, cluster, mesh: meshName, labels: { app: name, version }, serviceAccount: name },
    }),
  );
  const destination: Destination = {
    kind: "Destination",
    metadata: { name: `${name}-${namespace}-${cluster}`, cluster },
    spec: {
      name,
      namespace,
      cluster,
      mesh: meshName,
      labels: { app: name, tier: s % 2 === 0 ? "frontend" : "backend" },
      selector: { app: name },
      ports: [{ name: "http", port: 8080, protocol: "TCP", targetPort: 8080 }],
      subsets: { version: ["v1", "v2", "v3"] },
      endpoints: workloads.map((w, k) => ({ ip: `10.${c}.${s}.${k + 1}`, labels: w.spec.labels })),
      workloads: workloads.map((w) => w.metadata.name),
    },
  };
  return { destination, workloads };
}

function stored<K extends "VirtualMesh" | "TrafficPolicy" | "AccessPolicy">(kind: K, name: string, spec: StoredResource<K>["spec"]): StoredResource<K> {
  return {
    apiVersion: "meshplane.dev/v1",
    kind,
    metadata: { name, uid: name, generation: 1, resourceVersion: "1", createdAt: CREATED, updatedAt: CREATED },
    spec,
    status: { observedGeneration: 0, state: "PENDING" },
  };
}

const ref = (shape: BenchShape, k: number) => {
  const cluster = `cluster-${pad(k % shape.clusters)}`;
  const s = Math.floor(k / shape.clusters) % shape.servicesPerCluster;
  return { cluster, namespace: `ns-${pad(s % NAMESPACES_PER_CLUSTER, 2)}`, name: `svc-${pad(s)}` };
};

/**
 * A mix of what tenants write: per-service timeouts and retries, subset canaries, namespace-wide
 * DestinationRule settings, and matcher/source-specific routes; access policies per namespace
 * admitting service accounts of two other clusters.
 */
function trafficPolicy(shape: BenchShape, k: number): StoredResource<"TrafficPolicy"> {
  const one = [{ kubeServiceRefs: { services: [ref(shape, k)] } }];
  const name = `tp-${pad(k, 4)}`;
  switch (k % 10) {
    case 0:
    case 1:
    case 2:
    case 3:
      return stored("TrafficPolicy", name, { destinationSelector: one, policy: { requestTimeout: `${1 + (k % 5)}s`, retries: { attempts: 2 } } });
    case 4:
    case 5:
    case 6: {
      const r = ref(shape, k);
      return stored("TrafficPolicy", name, {
        destinationSelector: one,
        policy: {
          trafficShift: {
            destinations: [
              { kubeService: { ...r, subset: { version: "v1" } }, weight: 90 },
              { kubeService: { ...r, subset: { version: "v2" } }, weight: 10 },
            ],
          },
        },
      });
    }
    case 7:
    case 8:
      return stored("TrafficPolicy", name, {
        destinationSelector: [{ kubeServiceMatcher: { clusters: [ref(shape, k).cluster], namespaces: [ref(shape, k).namespace] } }],
        policy: { outlierDetection: { consecutiveErrors: 5 }, connectionPool: { tcp: { maxConnections: 100 } } },
      });
    default:
      return stored("TrafficPolicy", name, {
        destinationSelector: one,
        sourceSelector: [{ kubeWorkloadMatcher: { labels: { app: "svc-001" } } }],
        httpRequestMatchers: [{ uri: { prefix: "/api" } }, { headers: [{ name: "x-canary", value: "true" }] }],
        policy: { faultInjection: { abort: { httpStatus: 503 }, percentage: 1 } },
      });
  }
}

function accessPolicy(shape: BenchShape, k: number): StoredResource<"AccessPolicy"> {
  const r = ref(shape, k);
  const source = (offset: number) => ({ cluster: `cluster-${pad((k + offset) % shape.clusters)}`, namespace: r.namespace, name: r.name });
  return stored("AccessPolicy", `ap-${pad(k, 4)}`, {
    sourceSelector: [{ kubeServiceAccountRefs: { serviceAccounts: [source(1), source(2)] } }, { kubeIdentityMatcher: { namespaces: ["monitoring"] } }],
    destinationSelector: [{ kubeServiceMatcher: { clusters: [r.cluster], namespaces: [r.namespace] } }],
    allowedMethods: ["GET", "POST"],
  });
}

/** The benchmark tenant for `shape`. */
export function benchTenant(shape: BenchShape = FULL_SHAPE): TranslateInput {
  const clusters = Array.from({ length: shape.clusters }, (_, c) => `cluster-${pad(c)}`);
  const meshes = clusters.map(mesh);
  const destinations: Destination[] = [];
  const workloads: Workload[] = [];
  clusters.forEach((cluster, c) => {
    for (let s = 0; s < shape.servicesPerCluster; s++) {
      const built = service(cluster, c, s);
      destinations.push(built.destination);
      workloads.push(...built.workloads);
    }
  });
  return {
    tenant: "bench",
    clusters,
    meshes,
    workloads,
    destinations,
    virtualMeshes: [
      stored("VirtualMesh", "everything", {
        meshes: meshes.map((m) => ({ name: m.metadata.name })),
        mtlsConfig: { shared: {} },
        federation: { selectors: [{}] },
        globalAccessPolicy: "ENABLED",
      }),
    ],
    trafficPolicies: Array.from({ length: shape.trafficPolicies }, (_, k) => trafficPolicy(shape, k)),
    accessPolicies: Array.from({ length: shape.accessPolicies }, (_, k) => accessPolicy(shape, k)),
  };
}
