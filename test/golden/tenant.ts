/**
 * The compact tenant description golden cases, property tests and the benchmark are written in,
 * and its expansion into a TranslateInput. Discovered objects are derived the way discovery derives
 * them (names, backing workloads, subsets, endpoints), so a case states only what matters to it.
 */
import { z } from "zod";
import {
  accessPolicySpec,
  certificateResult,
  dataPlaneMode,
  discoveryResult,
  gateway,
  labelMap,
  resourceStatus,
  trafficPolicySpec,
  virtualMeshSpec,
  waypoint,
  type Destination,
  type Mesh,
  type StoredResource,
  type UserKind,
  type Workload,
} from "@meshplane/core";
import type { TranslateInput } from "../../packages/core/src/translate/index";
import { destinationsOf, meshesOf, workloadsOf } from "./discovered";

const meshDescription = z.strictObject({
  type: z.enum(["istio", "osm"]).default("istio"),
  /** Full discovered name; default `<deployment>-<namespace>-<cluster>`. */
  name: z.string().optional(),
  deployment: z.string().optional(),
  namespace: z.string().optional(),
  version: z.string().default("1.24.1"),
  revision: z.string().optional(),
  trustDomain: z.string().default("cluster.local"),
  trustDomainAliases: z.array(z.string()).optional(),
  istiodServiceAccount: z.string().default("istiod"),
  smartDnsProxyingEnabled: z.boolean().default(true),
  gateways: z.array(gateway).default([]),
  /** Istio's ambient data plane: ztunnel runs for this control plane (docs/ambient.md). */
  ambient: z.boolean().default(false),
  /**
   * With `ambient`, what discovery reads for multi-network ambient multicluster: istiod's
   * AMBIENT_ENABLE_MULTI_NETWORK and its namespace's network label; unset, left out of the report (an
   * agent that predates it).
   */
  multiNetwork: z.strictObject({ enabled: z.union([z.boolean(), z.literal("unknown")]), network: z.string().optional() }).optional(),
  waypoints: z.array(waypoint).optional(),
  /**
   * The cluster's HTTPRoute CRD as discovery reads it (docs/ambient.md#retries-and-the-crd-channel);
   * unset, left out of the report (an agent that predates it).
   */
  gatewayApi: z
    .strictObject({ httpRoute: z.strictObject({ bundleVersion: z.string().optional(), channel: z.string().optional(), retry: z.boolean() }).optional() })
    .optional(),
});

/** The waypoint an object's traffic goes through (`istio.io/use-waypoint`, as discovery resolves it). */
const waypointRef = z.strictObject({ name: z.string(), namespace: z.string() });

const workloadDescription = z.strictObject({
  name: z.string(),
  namespace: z.string(),
  kind: z.enum(["Deployment", "StatefulSet", "DaemonSet"]).default("Deployment"),
  labels: labelMap,
  serviceAccount: z.string().optional(),
  /** Full mesh name; default the cluster's first mesh. */
  mesh: z.string().optional(),
  /** Pod IPs; default one generated address. */
  ips: z.array(z.string()).optional(),
  zone: z.string().optional(),
  /** false: its pods run an Istio sidecar but lack the labels Istio's injector adds (injected by other means). */
  injectorLabels: z.boolean().default(true),
  /** How its pods join the mesh; unset, the field is left out of the report (an agent that predates ambient: `sidecar`). */
  dataPlane: dataPlaneMode.optional(),
  waypoint: waypointRef.optional(),
});

const serviceDescription = z.strictObject({
  name: z.string(),
  namespace: z.string(),
  labels: labelMap.default({}),
  /** Default `{app: <name>}`. */
  selector: labelMap.optional(),
  ports: z
    .array(
      z.strictObject({
        name: z.string().optional(),
        port: z.number().int(),
        protocol: z.string().default("TCP"),
        appProtocol: z.string().optional(),
        targetPort: z.union([z.number().int(), z.string()]).optional(),
      }),
    )
    .prefault([{ name: "http", port: 9080 }]),
  mesh: z.string().optional(),
  waypoint: waypointRef.optional(),
});

const clusterDescription = z.strictObject({
  meshes: z.array(meshDescription).prefault([{}]),
  workloads: z.array(workloadDescription).default([]),
  services: z.array(serviceDescription).default([]),
});

function resource<S extends z.ZodType>(spec: S) {
  return z.strictObject({
    name: z.string(),
    createdAt: z.string().optional(),
    generation: z.number().int().default(1),
    spec,
    status: resourceStatus.optional(),
  });
}

const fingerprint = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/** A VirtualMesh's CA as the control plane holds it (TranslateInput.trust); the uid is filled in. */
const trustDescription = z.strictObject({
  state: z.enum(["READY", "AWAITING_CERTIFICATE"]).default("READY"),
  issuer: fingerprint.optional(),
  rootFingerprint: fingerprint.optional(),
  rootNotAfter: z.string().optional(),
  trustBundle: z.array(fingerprint).default([]),
  phase: z.enum(["STABLE", "ADDING_ROOT", "SWITCHING", "DROPPING"]).default("STABLE"),
});

/** A golden case's input.yaml: clusters with what was discovered in them, and the user resources. */
export const tenantDescription = z.strictObject({
  description: z.string().optional(),
  tenant: z.string().default("acme"),
  clusters: z.record(z.string(), clusterDescription),
  virtualMeshes: z.array(resource(virtualMeshSpec)).default([]),
  trafficPolicies: z.array(resource(trafficPolicySpec)).default([]),
  accessPolicies: z.array(resource(accessPolicySpec)).default([]),
  /** VirtualMesh name → its CA. */
  trust: z.record(z.string(), trustDescription).default({}),
  /** Cluster → the agent's certificate reports. */
  certificates: z.record(z.string(), z.array(certificateResult)).default({}),
});
export type TenantDescription = z.input<typeof tenantDescription>;
type Tenant = z.output<typeof tenantDescription>;
export type ClusterDescription = z.output<typeof clusterDescription>;

const EPOCH = Date.UTC(2024, 0, 1);

function stored<K extends UserKind>(
  kind: K,
  r: Tenant["trafficPolicies"][number] | Tenant["accessPolicies"][number] | Tenant["virtualMeshes"][number],
  i: number,
): StoredResource<K> {
  const createdAt = r.createdAt ?? new Date(EPOCH + i * 60_000).toISOString();
  return {
    apiVersion: "meshplane.dev/v1",
    kind,
    metadata: { name: r.name, uid: `uid-${kind}-${r.name}`, generation: r.generation, resourceVersion: "1", createdAt, updatedAt: createdAt },
    spec: r.spec as StoredResource<K>["spec"],
    status: r.status ?? { observedGeneration: 0, state: "PENDING" },
  };
}

/**
 * Expands a tenant description into the translator's input. Discovered objects pass through the
 * API's discovery schema and resources through their spec schemas, so a typo in a golden case fails
 * loudly instead of testing something else. Resources without `createdAt` are created a minute
 * apart in list order.
 */
export function buildInput(description: TenantDescription): TranslateInput {
  const tenant = tenantDescription.parse(description);
  const meshes: Mesh[] = [];
  const workloads: Workload[] = [];
  const destinations: Destination[] = [];
  Object.entries(tenant.clusters).forEach(([cluster, c], i) => {
    const clusterMeshes = meshesOf(cluster, c);
    const pods = workloadsOf(cluster, i + 1, c, clusterMeshes);
    meshes.push(...clusterMeshes);
    workloads.push(...pods.map((p) => p.workload));
    destinations.push(...destinationsOf(cluster, c, clusterMeshes, pods));
  });
  discoveryResult.parse({ meshes, workloads, destinations });
  return {
    tenant: tenant.tenant,
    clusters: Object.keys(tenant.clusters),
    meshes,
    workloads,
    destinations,
    virtualMeshes: tenant.virtualMeshes.map((r, i) => stored("VirtualMesh", r, i)),
    trafficPolicies: tenant.trafficPolicies.map((r, i) => stored("TrafficPolicy", r, i)),
    accessPolicies: tenant.accessPolicies.map((r, i) => stored("AccessPolicy", r, i)),
    trust: Object.fromEntries(Object.entries(tenant.trust).map(([vm, t]) => [vm, { uid: `uid-VirtualMesh-${vm}`, ...t }])),
    certificates: tenant.certificates,
  };
}
