/**
 * The traffic model's world (test/metrics/traffic-model.ts) in the lab's two clusters: the default
 * lab's fixtures (cluster-east: Bookinfo on Istio 1.24, cluster-west: payments on the revision 1-24
 * with an east-west gateway) plus the model's namespaces — `shop` on sidecars in both, `bank` on the
 * ambient data plane in cluster-west (ztunnel, the waypoint `meshplane-waypoint` bound to ledger, vault
 * without one) — each workload a Deployment with the model's pods, each destination a Service, and
 * istiod's `CLUSTER_ID` the model's Istio cluster ID (east, west), so discovery names every
 * destination the model's series speak of and the agent reads them as its own cluster's.
 */
import { join } from "node:path";
import { FIXTURES } from "../support/agents";
import { CLUSTER_IDS, type ClusterName, WAYPOINT_WORKLOAD } from "../metrics/traffic-model";
import { FLOWS, type Workload } from "../metrics/traffic-flows";
import { type KubeObject, bindWaypoint, istioOf, readFixture, toAmbient, waypoint, writeFixture, ztunnel } from "./ambient-fixture";

/** The lab's cluster each of the model's clusters is. */
export const LAB_CLUSTERS: Record<ClusterName, string> = { "cluster-1": "cluster-east", "cluster-2": "cluster-west" };
/** The fixture each lab cluster starts from (the default lab's). */
const BASE_FIXTURES: Record<ClusterName, string> = { "cluster-1": "istio-bookinfo.yaml", "cluster-2": "istio-revision-eastwest.yaml" };
/** The model's namespace on the ambient data plane. */
export const AMBIENT_NAMESPACE = "bank";

type Container = { name: string; env?: { name: string; value?: string }[] };
type PodSpec = { containers: Container[]; serviceAccountName?: string; serviceAccount?: string };

/** One of the fixture's app workloads to copy: its Namespace, Deployment, ReplicaSet, a Pod and a Service. */
interface Template {
  namespace: KubeObject;
  deployment: KubeObject;
  replicaSet: KubeObject;
  pod: KubeObject;
  service: KubeObject;
}

const owned = (owner: string) => (o: KubeObject) => (o.metadata as { ownerReferences?: { name: string }[] }).ownerReferences?.[0]?.name === owner;

function templateOf(objects: KubeObject[], namespace: string): Template {
  const find = (kind: string, test: (o: KubeObject) => boolean = () => true) => {
    const found = objects.find((o) => o.kind === kind && test(o));
    if (!found) throw new Error(`the fixture has no ${kind} to copy in ${namespace}`);
    return found;
  };
  const deployment = find("Deployment", (o) => o.metadata.namespace === namespace);
  const replicaSet = find("ReplicaSet", owned(deployment.metadata.name));
  return {
    namespace: find("Namespace", (o) => o.metadata.name === namespace),
    deployment,
    replicaSet,
    pod: find("Pod", owned(replicaSet.metadata.name)),
    service: find("Service", (o) => o.metadata.namespace === namespace),
  };
}

const copy = <T>(o: T): T => structuredClone(o);
const canonical = (workload: string) => /^(.*)-(v\d+)$/.exec(workload);

/** `o` renamed into `namespace` as `name`, with `labels`, without what the apiserver set. */
function renamed(o: KubeObject, name: string, namespace: string, labels: Record<string, string>): KubeObject {
  const out = copy(o);
  const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, generateName: _gn, ...metadata } = out.metadata as Record<string, unknown>;
  out.metadata = { ...(metadata as KubeObject["metadata"]), name, namespace, labels: { ...labels } };
  return out;
}

/** The Deployment, ReplicaSet and Pods of one of the model's workloads, copied from `t`. */
function workloadObjects(t: Template, w: Workload, podNet: number): KubeObject[] {
  const app = canonical(w.workload)?.[1] ?? w.workload;
  const labels = { app, version: canonical(w.workload)?.[2] ?? "v1" };
  // The model's pod names carry the ReplicaSet's hash (`cart-v1-6c7d8f5b9-a1b2c`); a pod like `vault-0` gets one made up.
  const hash = new RegExp(`^${w.workload}-([a-z0-9]{6,10})-[a-z0-9]{5}$`).exec(w.pods[0] ?? "")?.[1] ?? "5c6d7e8f9";
  const rsName = `${w.workload}-${hash}`;
  const spec = (s: unknown, podLabels: Record<string, string>) => {
    const out = copy(s) as {
      replicas?: number;
      selector?: { matchLabels: Record<string, string> };
      template?: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    };
    out.replicas = w.pods.length;
    if (out.selector) out.selector.matchLabels = podLabels;
    if (out.template) {
      out.template.metadata.labels = podLabels;
      podSpec(out.template.spec, app);
    }
    return out;
  };
  const deployment = renamed(t.deployment, w.workload, w.namespace, labels);
  deployment.spec = spec(t.deployment.spec, labels);
  const rsLabels = { ...labels, "pod-template-hash": hash };
  const replicaSet = renamed(t.replicaSet, rsName, w.namespace, rsLabels);
  replicaSet.spec = spec(t.replicaSet.spec, rsLabels);
  (replicaSet.metadata as Record<string, unknown>).ownerReferences = [{ apiVersion: "apps/v1", kind: "Deployment", name: w.workload, controller: true }];
  const pods = w.pods.map((name, i) => {
    const podLabels = {
      ...t.pod.metadata.labels,
      ...rsLabels,
      "service.istio.io/canonical-name": app,
      "service.istio.io/canonical-revision": labels.version,
    };
    const pod = renamed(t.pod, name, w.namespace, podLabels);
    (pod.metadata as Record<string, unknown>).ownerReferences = [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: rsName, controller: true }];
    podSpec(pod.spec as PodSpec, app);
    const ip = `10.${podNet}.${200 + i}.${10 + (w.workload.length % 200)}`;
    pod.status = { ...pod.status, podIP: ip, podIPs: [{ ip }] };
    return pod;
  });
  return [deployment, replicaSet, ...pods];
}

/** The app container named after the workload, its service account too. */
function podSpec(spec: PodSpec, app: string): void {
  const first = spec.containers[0];
  if (first) first.name = app;
  spec.serviceAccountName = app;
  spec.serviceAccount = app;
}

/** A destination's Service (selecting its workload's pods), copied from `t`, with one port for `protocol`. */
function serviceObject(t: Template, namespace: string, service: string, app: string, protocol: "http" | "grpc" | "tcp"): KubeObject {
  const out = renamed(t.service, service, namespace, { app });
  const port = { http: { name: "http", port: 8080 }, grpc: { name: "grpc", port: 9090, appProtocol: "grpc" }, tcp: { name: "tcp", port: 5432 } }[protocol];
  out.spec = { ...copy(t.service.spec), selector: { app }, ports: [{ ...port, protocol: "TCP", targetPort: port.port }] };
  return out;
}

/** Every CLUSTER_ID variable of `objects` (istiod's and its proxies') set to `id`. */
function withClusterId(objects: KubeObject[], id: string): KubeObject[] {
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    if (o.name === "CLUSTER_ID" && typeof o.value === "string") o.value = id;
    for (const child of Object.values(o)) visit(child);
  };
  const out = copy(objects);
  visit(out);
  return out;
}

/** The objects of one lab cluster: its base fixture with the model's namespaces, workloads and Services in `cluster`. */
export function trafficObjects(cluster: ClusterName): KubeObject[] {
  const base = withClusterId(readFixture(join(FIXTURES, BASE_FIXTURES[cluster])), CLUSTER_IDS[cluster]);
  const template = templateOf(base, cluster === "cluster-1" ? "bookinfo" : "payments");
  const workloads = new Map<string, Workload>();
  const services = new Map<string, KubeObject>();
  for (const flow of FLOWS) {
    for (const w of [flow.source, flow.destination])
      if (w.cluster === cluster && w.namespace !== "istio-system") workloads.set(`${w.namespace}/${w.workload}`, w);
    const d = flow.destination;
    if (d.cluster === cluster)
      services.set(`${d.namespace}/${d.service}`, serviceObject(template, d.namespace, d.service, canonical(d.workload)?.[1] ?? d.workload, flow.protocol));
  }
  const namespaces = [...new Set([...workloads.values()].map((w) => w.namespace))].map((name) => {
    const ns = renamed(template.namespace, name, "", { ...template.namespace.metadata.labels, "kubernetes.io/metadata.name": name });
    delete (ns.metadata as { namespace?: string }).namespace;
    return ns;
  });
  const podNet = cluster === "cluster-1" ? 1 : 2;
  let objects = [...base, ...namespaces, ...[...workloads.values()].flatMap((w) => workloadObjects(template, w, podNet)), ...services.values()];
  if (namespaces.some((n) => n.metadata.name === AMBIENT_NAMESPACE)) {
    const istio = istioOf(base);
    objects = toAmbient([...objects, ztunnel(istio), waypoint(AMBIENT_NAMESPACE, istio, WAYPOINT_WORKLOAD)], [AMBIENT_NAMESPACE]);
    objects = bindWaypoint(objects, AMBIENT_NAMESPACE, "ledger", WAYPOINT_WORKLOAD);
  }
  return objects;
}

/** Each lab cluster's fixture, written to a temp file (remove its directory when seeded). */
export function trafficFixtures(): Record<ClusterName, string> {
  return {
    "cluster-1": writeFixture(LAB_CLUSTERS["cluster-1"], trafficObjects("cluster-1")),
    "cluster-2": writeFixture(LAB_CLUSTERS["cluster-2"], trafficObjects("cluster-2")),
  };
}
