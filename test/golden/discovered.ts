/**
 * What discovery would report for a described cluster (docs/resources.md#discovery): meshes, workloads with their
 * pods, and destinations with backing workloads, subsets and endpoints derived the way discovery
 * derives them, so golden cases state only what matters to them.
 */
import { discoveredName, workloadName, type Destination, type Mesh, type Workload } from "@meshplane/core";
import type { ClusterDescription } from "./tenant";

export function meshesOf(cluster: string, c: ClusterDescription): Mesh[] {
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
                ...(m.trustDomainAliases ? { trustDomainAliases: m.trustDomainAliases } : {}),
                istiodServiceAccount: m.istiodServiceAccount,
                smartDnsProxyingEnabled: m.smartDnsProxyingEnabled,
                gateways: m.gateways,
                ...(m.ambient ? { ambient: { ztunnel: { namespace, version: m.version }, ...(m.multiNetwork ? { multiNetwork: m.multiNetwork } : {}) } } : {}),
                ...(m.waypoints ? { waypoints: m.waypoints } : {}),
                ...(m.gatewayApi ? { gatewayApi: m.gatewayApi } : {}),
              },
            }
          : {}),
      },
    };
  });
}

export interface Pods {
  workload: Workload;
  ips: string[];
  zone?: string | undefined;
  injectorLabels: boolean;
}

export function workloadsOf(cluster: string, clusterIndex: number, c: ClusterDescription, meshes: Mesh[]): Pods[] {
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
        ...(w.dataPlane ? { dataPlane: w.dataPlane } : {}),
        ...(w.waypoint ? { waypoint: w.waypoint } : {}),
      },
    },
    ips: w.ips ?? [`10.${clusterIndex}.${Math.floor(i / 250)}.${(i % 250) + 1}`],
    zone: w.zone,
    injectorLabels: w.injectorLabels,
  }));
}

/**
 * The labels of a pod Istio's injector mutated: the template's plus what the injector adds
 * (`security.istio.io/tlsMode: istio`, the canonical service name and revision). Golden cases model
 * real injected pods, because Istio keeps only `tlsMode: istio` endpoints behind AUTO_PASSTHROUGH.
 */
export function injectedLabels(labels: Record<string, string>, workload: string): Record<string, string> {
  return {
    "security.istio.io/tlsMode": "istio",
    "service.istio.io/canonical-name": labels["service.istio.io/canonical-name"] ?? labels.app ?? workload,
    "service.istio.io/canonical-revision": labels["service.istio.io/canonical-revision"] ?? labels.version ?? "latest",
    ...labels,
  };
}

/** What discovery reports of a pod: its labels and, for Istio, the sidecar it saw (none in ambient pods). */
function podEndpoint(p: Pods, meshes: readonly Mesh[]): { labels: Record<string, string>; sidecar?: "istio" } {
  const mesh = meshes.find((m) => m.metadata.name === p.workload.spec.mesh);
  if (mesh?.spec.type !== "istio" || (p.workload.spec.dataPlane ?? "sidecar") !== "sidecar") return { labels: p.workload.spec.labels };
  return { labels: p.injectorLabels ? injectedLabels(p.workload.spec.labels, p.workload.spec.name) : p.workload.spec.labels, sidecar: "istio" };
}

const NOT_SUBSET_KEYS = new Set(["pod-template-hash", "service.istio.io/canonical-revision"]);

/** Label keys whose values differ across backing workloads (docs/resources.md#discovery), as discovery computes them. */
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

/** Whether a Service selector (non-empty) selects a pod with `labels`. */
export function selects(selector: Record<string, string>, labels: Record<string, string>): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

/**
 * A destination's data plane as discovery derives it (docs/ambient.md#what-discovery-sees): its
 * backing workloads' one mode, `mixed` when they differ; left out when none of them reports one.
 */
function dataPlaneOf(backing: readonly Workload[]): { dataPlane?: Destination["spec"]["dataPlane"] } {
  if (backing.every((w) => w.spec.dataPlane === undefined)) return {};
  const modes = new Set(backing.map((w) => w.spec.dataPlane ?? "sidecar"));
  const [only] = modes;
  return { dataPlane: modes.size > 1 ? "mixed" : only };
}

export function destinationsOf(cluster: string, c: ClusterDescription, meshes: Mesh[], pods: Pods[]): Destination[] {
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
        endpoints: backing.flatMap((p) => p.ips.map((ip) => ({ ip, ...podEndpoint(p, meshes), ...(p.zone ? { zone: p.zone } : {}) }))),
        workloads: backing.map((p) => p.workload.metadata.name),
        ...dataPlaneOf(backing.map((p) => p.workload)),
        ...(s.waypoint ? { waypoint: s.waypoint } : {}),
      },
    };
  });
}
