/**
 * The Kubernetes world of one cluster as istiod sees it, rebuilt from a translator input: the
 * Namespaces, Services, EndpointSlices and injected Pods behind its discovered destinations, the
 * east-west gateways' Services and Pods, and the mesh config (trust domain). With our generated
 * objects for that cluster it is the judge's input; the proxies are one sidecar per workload and one
 * router per gateway.
 */
import { stringify } from "yaml";
import type { Destination, Mesh, Workload } from "@meshplane/core";
import type { TranslateInput, TranslateOutput } from "../../packages/core/src/translate/index";
import { injectedLabels, selects } from "../golden/discovered";
import type { JudgeProxy, XdsInput } from "./judge";

export interface Pod {
  name: string;
  namespace: string;
  ip: string;
  labels: Record<string, string>;
  serviceAccount: string;
  zone?: string | undefined;
  /** The discovered workload whose pod this is. */
  owner?: Workload | undefined;
}

/** The address a gateway's pod gets in cluster number `c`; stable, and apart from workload pods. */
function gatewayIp(c: number, i: number): string {
  return `10.${c}.250.${i + 1}`;
}

function podsOf(workloads: readonly Workload[], destinations: readonly Destination[]): Pod[] {
  const pods = new Map<string, Pod>();
  for (const d of destinations) {
    for (const e of d.spec.endpoints) {
      if (pods.has(e.ip)) continue;
      const owner = workloads.find((w) => w.spec.namespace === d.spec.namespace && selects(w.spec.labels, e.labels));
      pods.set(e.ip, {
        name: `${owner?.spec.name ?? d.spec.name}-${e.ip.replaceAll(".", "-")}`,
        namespace: d.spec.namespace,
        ip: e.ip,
        labels: e.labels,
        serviceAccount: owner?.spec.serviceAccount ?? "default",
        zone: e.zone,
        owner,
      });
    }
  }
  return [...pods.values()];
}

/** A running pod; with `annotations`, those too (an injected one's `sidecar.istio.io/status`). */
export function podObject(pod: Pod, sidecar: boolean, annotations?: Record<string, string>): object {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: pod.name, namespace: pod.namespace, labels: pod.labels, ...(annotations === undefined ? {} : { annotations }) },
    spec: {
      serviceAccountName: pod.serviceAccount,
      containers: [{ name: "app", image: "app" }, ...(sidecar ? [{ name: "istio-proxy", image: "docker.io/istio/proxyv2:1.28.0" }] : [])],
    },
    status: { phase: "Running", podIP: pod.ip, podIPs: [{ ip: pod.ip }], conditions: [{ type: "Ready", status: "True" }] },
  };
}

function serviceObjects(d: Destination, index: number, pods: ReadonlyMap<string, Pod>): object[] {
  const ports = d.spec.ports.map((p) => ({
    ...(p.name === undefined ? {} : { name: p.name }),
    port: p.port,
    protocol: p.protocol,
    ...(p.appProtocol === undefined ? {} : { appProtocol: p.appProtocol }),
    targetPort: p.targetPort ?? p.port,
  }));
  const service = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: d.spec.name, namespace: d.spec.namespace, labels: d.spec.labels },
    spec: { selector: d.spec.selector, clusterIP: `10.96.${Math.floor(index / 250)}.${(index % 250) + 1}`, ports },
  };
  const slice = {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: `${d.spec.name}-slice`, namespace: d.spec.namespace, labels: { "kubernetes.io/service-name": d.spec.name } },
    addressType: "IPv4",
    ports: d.spec.ports.map((p) => ({
      ...(p.name === undefined ? {} : { name: p.name }),
      port: typeof p.targetPort === "number" ? p.targetPort : p.port,
      protocol: p.protocol,
    })),
    endpoints: d.spec.endpoints.map((e) => ({
      addresses: [e.ip],
      conditions: { ready: true },
      targetRef: { kind: "Pod", name: pods.get(e.ip)?.name, namespace: d.spec.namespace },
      ...(e.zone === undefined ? {} : { zone: e.zone }),
    })),
  };
  return [service, slice];
}

function gatewayObjects(mesh: Mesh, c: number): { objects: object[]; proxies: JudgeProxy[] } {
  const objects: object[] = [];
  const proxies: JudgeProxy[] = [];
  (mesh.spec.istio?.gateways ?? []).forEach((g, i) => {
    const ip = gatewayIp(c, i);
    const labels = { ...g.selector, "security.istio.io/tlsMode": "istio" };
    objects.push({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: g.name, namespace: g.namespace },
      spec: {
        selector: g.selector,
        clusterIP: `10.97.${c}.${i + 1}`,
        ports: [{ name: g.tlsPortName, port: g.containerPort, targetPort: g.containerPort, protocol: "TCP" }],
      },
    });
    objects.push({
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: `${g.name}-slice`, namespace: g.namespace, labels: { "kubernetes.io/service-name": g.name } },
      addressType: "IPv4",
      ports: [{ name: g.tlsPortName, port: g.containerPort, protocol: "TCP" }],
      endpoints: [{ addresses: [ip], conditions: { ready: true }, targetRef: { kind: "Pod", name: `${g.name}-0`, namespace: g.namespace } }],
    });
    objects.push(podObject({ name: `${g.name}-0`, namespace: g.namespace, ip, labels, serviceAccount: g.name }, false));
    proxies.push({ name: `${g.kind}:${g.namespace}/${g.name}`, type: "router", ip, namespace: g.namespace, labels });
  });
  return { objects, proxies };
}

export function objectKey(o: object): string {
  const { kind, metadata } = o as { kind: string; metadata: { namespace?: string; name: string } };
  return `${kind}/${metadata.namespace ?? ""}/${metadata.name}`;
}

export function yamlDocs(objects: readonly object[]): string {
  return objects.map((o) => stringify(o, { aliasDuplicateObjects: false, lineWidth: 0, version: "1.1" })).join("---\n");
}

/** A cluster's Kubernetes objects as istiod sees them, with what they were built from. */
export interface ClusterScene {
  /** The cluster's number (1-based), which its addresses carry. */
  c: number;
  mesh: Mesh;
  workloads: Workload[];
  pods: Pod[];
  kube: object[];
  gateways: { objects: object[]; proxies: JudgeProxy[] };
}

/**
 * The Kubernetes world of `cluster` (undefined without an Istio mesh): Namespaces, Services,
 * EndpointSlices, the pods behind its destinations (each made by `pod`), its gateways.
 */
export function clusterScene(input: TranslateInput, cluster: string, pod: (p: Pod) => object): ClusterScene | undefined {
  const c = input.clusters.indexOf(cluster) + 1;
  const mesh = input.meshes.find((m) => m.spec.cluster === cluster && m.spec.type === "istio");
  if (mesh === undefined) return undefined;
  const workloads = input.workloads.filter((w) => w.spec.cluster === cluster);
  const destinations = input.destinations.filter((d) => d.spec.cluster === cluster);
  const pods = podsOf(workloads, destinations);
  const podByIp = new Map(pods.map((p) => [p.ip, p]));
  const gateways = gatewayObjects(mesh, c);
  const namespaces = new Set([
    mesh.spec.namespace,
    ...pods.map((p) => p.namespace),
    ...destinations.map((d) => d.spec.namespace),
    ...(mesh.spec.istio?.gateways ?? []).map((g) => g.namespace),
  ]);
  const all = [
    ...[...namespaces].sort().map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })),
    ...destinations.flatMap((d, i) => serviceObjects(d, i, podByIp)),
    ...pods.map(pod),
    ...gateways.objects,
  ];
  // A gateway's Service may also be a discovered destination; the cluster has it once.
  const kube = all.filter((o, i) => all.findIndex((other) => objectKey(other) === objectKey(o)) === i);
  return { c, mesh, workloads, pods, kube, gateways };
}

/** The mesh config istiod of `mesh` runs with: its trust domain and aliases, its root namespace, and `extra` YAML lines. */
export function meshConfigOf(mesh: Mesh, extra = ""): string {
  const trustDomain = mesh.spec.istio?.trustDomain ?? "cluster.local";
  const aliases = mesh.spec.istio?.trustDomainAliases ?? [];
  return `trustDomain: ${trustDomain}\ntrustDomainAliases: ${JSON.stringify(aliases)}\nrootNamespace: ${mesh.spec.namespace}\n${extra}`;
}

/**
 * The judge's input for `cluster`: its Kubernetes world from `input`, our objects from `output`, its
 * Istio mesh's trust domain (and `meshConfigExtra`, YAML lines appended to the mesh config), and a
 * sidecar proxy per workload (named `<namespace>/<workload>`, and `<namespace>/<workload>@<ip>` for its further pods) and a router per gateway (named
 * `<kind>:<namespace>/<name>`). Undefined when the cluster has no Istio mesh.
 */
export function clusterWorld(input: TranslateInput, output: TranslateOutput, cluster: string, meshConfigExtra = ""): XdsInput | undefined {
  const scene = clusterScene(input, cluster, (pod) => podObject(pod, true));
  if (scene === undefined) return undefined;
  const { c, mesh, workloads, pods, kube, gateways } = scene;
  // One sidecar per workload (named after it, at its first pod), and one per further pod.
  const sidecars = workloads.flatMap((w): JudgeProxy[] => {
    const own = pods.filter((p) => p.namespace === w.spec.namespace && selects(w.spec.labels, p.labels));
    const base = `${w.spec.namespace}/${w.spec.name}`;
    if (own.length === 0) {
      const ip = `10.${c}.251.${workloads.indexOf(w) + 1}`;
      return [{ name: base, type: "sidecar", ip, namespace: w.spec.namespace, labels: injectedLabels(w.spec.labels, w.spec.name) }];
    }
    return own.map((pod, i) => ({ name: i === 0 ? base : `${base}@${pod.ip}`, type: "sidecar", ip: pod.ip, namespace: w.spec.namespace, labels: pod.labels }));
  });
  return {
    cluster,
    meshConfig: meshConfigOf(mesh, meshConfigExtra),
    config: yamlDocs(output.clusters[cluster]?.objects ?? []),
    kubernetes: yamlDocs(kube),
    proxies: [...sidecars, ...gateways.proxies],
  };
}
