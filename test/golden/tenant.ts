/**
 * The compact tenant description golden cases, property tests and the benchmark are written in,
 * and its expansion into a TranslateInput. Discovered objects are derived the way discovery derives
 * them (names, backing workloads, subsets, endpoints), so a case states only what matters to it.
 */
import { z } from "zod";
import {
  accessPolicySpec,
  discoveredName,
  discoveryResult,
  gateway,
  labelMap,
  resourceStatus,
  trafficPolicySpec,
  virtualMeshSpec,
  workloadName,
  type Destination,
  type Mesh,
  type StoredResource,
  type UserKind,
  type Workload,
} from "@meshplane/core";
import type { TranslateInput } from "../../packages/core/src/translate/index";

const meshDescription = z.strictObject({
  type: z.enum(["istio", "osm"]).default("istio"),
  /** Full discovered name; default `<deployment>-<namespace>-<cluster>`. */
  name: z.string().optional(),
  deployment: z.string().optional(),
  namespace: z.string().optional(),
  version: z.string().default("1.24.1"),
  revision: z.string().optional(),
  trustDomain: z.string().default("cluster.local"),
  istiodServiceAccount: z.string().default("istiod"),
  smartDnsProxyingEnabled: z.boolean().default(true),
  gateways: z.array(gateway).default([]),
});

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

export const tenantDescription = z.strictObject({
  description: z.string().optional(),
  tenant: z.string().default("acme"),
  clusters: z.record(z.string(), clusterDescription),
  virtualMeshes: z.array(resource(virtualMeshSpec)).default([]),
  trafficPolicies: z.array(resource(trafficPolicySpec)).default([]),
  accessPolicies: z.array(resource(accessPolicySpec)).default([]),
});
export type TenantDescription = z.input<typeof tenantDescription>;
type Tenant = z.output<typeof tenantDescription>;
type ClusterDescription = z.output<typeof clusterDescription>;

function meshesOf(cluster: string, c: ClusterDescription): Mesh[] {
  return c.meshes.map((m): Mesh => {
    const namespace = m.namespace ?? (m.type === "istio" ? "istio-system" : "osm-system");
    const deployment = m.deployment ?? (m.type === "istio" ? (m.revision ? `istiod-${m.revision}` : "istiod") : "osm-controller");
    return {
      kind: "Mesh",
      metadata: { name: m.name ?? discoveredName({ name: deployment, namespace, cluster }), cluster },
      spec: {
        type: m.type,
        cluster,
        namespace,
        version: m.version,
        ...(m.type === "istio"
          ? {
              istio: {
                ...(m.revision ? { revision: m.revision } : {}),
                trustDomain: m.trustDomain,
                istiodServiceAccount: m.istiodServiceAccount,
                smartDnsProxyingEnabled: m.smartDnsProxyingEnabled,
                gateways: m.gateways,
              },
            }
          : {}),
      },
    };
  });
}

interface Pods {
  workload: Workload;
  ips: string[];
  zone?: string | undefined;
}

function workloadsOf(cluster: string, clusterIndex: number, c: ClusterDescription, meshes: Mesh[]): Pods[] {
  return c.workloads.map((w, i) => ({
    workload: {
      kind: "Workload",
      metadata: { name: workloadName({ name: w.name, namespace: w.namespace, cluster, kind: w.kind }), cluster },
      spec: {
        kind: w.kind,
        name: w.name,
        namespace: w.namespace,
        cluster,
        mesh: w.mesh ?? meshes[0]?.metadata.name ?? "",
        labels: w.labels,
        serviceAccount: w.serviceAccount ?? w.name,
      },
    },
    ips: w.ips ?? [`10.${clusterIndex}.${Math.floor(i / 250)}.${(i % 250) + 1}`],
    zone: w.zone,
  }));
}

const NOT_SUBSET_KEYS = new Set(["pod-template-hash", "service.istio.io/canonical-revision"]);

/** Label keys whose values differ across backing workloads (API.md §3), as discovery computes them. */
function subsetsOf(workloads: readonly Workload[]): Record<string, string[]> {
  const values = new Map<string, Set<string>>();
  for (const w of workloads) {
    for (const [key, value] of Object.entries(w.spec.labels)) {
      if (!NOT_SUBSET_KEYS.has(key)) values.set(key, (values.get(key) ?? new Set()).add(value));
    }
  }
  const out: Record<string, string[]> = {};
  for (const key of [...values.keys()].sort()) {
    const set = values.get(key) as Set<string>;
    if (set.size > 1) out[key] = [...set].sort();
  }
  return out;
}

function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

function destinationsOf(cluster: string, c: ClusterDescription, meshes: Mesh[], pods: Pods[]): Destination[] {
  const byNamespace = new Map<string, Pods[]>();
  for (const p of pods) byNamespace.set(p.workload.spec.namespace, [...(byNamespace.get(p.workload.spec.namespace) ?? []), p]);
  return c.services.map((s): Destination => {
    const selector = s.selector ?? { app: s.name };
    const backing = (byNamespace.get(s.namespace) ?? []).filter((p) => selects(selector, p.workload.spec.labels));
    return {
      kind: "Destination",
      metadata: { name: discoveredName({ name: s.name, namespace: s.namespace, cluster }), cluster },
      spec: {
        name: s.name,
        namespace: s.namespace,
        cluster,
        mesh: s.mesh ?? backing[0]?.workload.spec.mesh ?? meshes[0]?.metadata.name ?? "",
        labels: s.labels,
        selector,
        ports: s.ports,
        subsets: subsetsOf(backing.map((p) => p.workload)),
        endpoints: backing.flatMap((p) => p.ips.map((ip) => ({ ip, labels: p.workload.spec.labels, ...(p.zone ? { zone: p.zone } : {}) }))),
        workloads: backing.map((p) => p.workload.metadata.name),
      },
    };
  });
}

const EPOCH = Date.UTC(2024, 0, 1);

function stored<K extends UserKind>(kind: K, r: Tenant["trafficPolicies"][number] | Tenant["accessPolicies"][number] | Tenant["virtualMeshes"][number], i: number): StoredResource<K> {
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
  };
}
