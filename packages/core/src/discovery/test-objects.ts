/**
 * Builders of minimal Kubernetes objects for the discovery unit tests (not exported from the
 * package). Realistic full objects live in test/discovery/fixtures; these keep each case to the
 * fields it is about.
 */
import type { Mesh, Waypoint } from "../api/discovery";
import type { ClusterObjects, ConfigMap, Container, KubeGateway, Namespace, Node, Pod, PodController, ReplicaSet, Service, StringMap } from "./kube";

export const ISTIO_PROXY: Container = { name: "istio-proxy", image: "docker.io/istio/proxyv2:1.24.2" };
export const APP: Container = { name: "app", image: "docker.io/example/app:1.0" };

export interface ControllerOptions {
  labels?: StringMap;
  templateLabels?: StringMap;
  templateAnnotations?: StringMap;
  containers?: Container[];
  serviceAccountName?: string;
  uid?: string;
}

export function controller(name: string, ns: string, options: ControllerOptions = {}): PodController {
  return {
    metadata: { name, namespace: ns, ...(options.uid ? { uid: options.uid } : {}), ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      replicas: 1,
      template: {
        metadata: { labels: options.templateLabels ?? { app: name }, ...(options.templateAnnotations ? { annotations: options.templateAnnotations } : {}) },
        spec: { containers: options.containers ?? [APP], ...(options.serviceAccountName ? { serviceAccountName: options.serviceAccountName } : {}) },
      },
    },
  };
}

export function replicaSet(name: string, ns: string, deployment: string, uid?: string): ReplicaSet {
  return { metadata: { name, namespace: ns, ...(uid ? { uid } : {}), ownerReferences: [{ kind: "Deployment", name: deployment, controller: true }] } };
}

export interface PodOptions {
  owner?: { kind: string; name: string; uid?: string };
  labels?: StringMap;
  annotations?: StringMap;
  containers?: Container[];
  initContainers?: Container[];
  nodeName?: string;
}

export function pod(name: string, ns: string, options: PodOptions = {}): Pod {
  return {
    metadata: {
      name,
      namespace: ns,
      ...(options.labels ? { labels: options.labels } : {}),
      ...(options.annotations ? { annotations: options.annotations } : {}),
      ...(options.owner ? { ownerReferences: [{ ...options.owner, controller: true }] } : {}),
    },
    spec: {
      containers: options.containers ?? [APP, ISTIO_PROXY],
      ...(options.initContainers ? { initContainers: options.initContainers } : {}),
      ...(options.nodeName ? { nodeName: options.nodeName } : {}),
    },
  };
}

export function service(
  name: string,
  ns: string,
  spec: Service["spec"],
  extra: Partial<Pick<Service, "status">> & { labels?: StringMap; annotations?: StringMap } = {},
): Service {
  return {
    metadata: { name, namespace: ns, ...(extra.labels ? { labels: extra.labels } : {}), ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec,
    ...(extra.status ? { status: extra.status } : {}),
  };
}

export function node(name: string, addresses: Record<string, string> = {}, labels: StringMap = {}): Node {
  return { metadata: { name, labels }, status: { addresses: Object.entries(addresses).map(([address, type]) => ({ type, address })) } };
}

export function namespace(name: string, labels: StringMap = {}, annotations: StringMap = {}): Namespace {
  return { metadata: { name, labels, annotations } };
}

export function configMap(name: string, ns: string, data: StringMap): ConfigMap {
  return { metadata: { name, namespace: ns }, data };
}

/** An istiod Deployment and its mesh ConfigMap; `revision` names both as Istio's chart does. */
export function istiod(revision?: string, meshYaml = "trustDomain: cluster.local\n"): { deployment: PodController; configMap: ConfigMap } {
  const name = revision ? `istiod-${revision}` : "istiod";
  return {
    deployment: controller(name, "istio-system", {
      labels: { app: "istiod", "istio.io/rev": revision ?? "default" },
      containers: [{ name: "discovery", image: "docker.io/istio/pilot:1.24.2" }],
      serviceAccountName: name,
    }),
    configMap: configMap(revision ? `istio-${revision}` : "istio", "istio-system", { mesh: meshYaml }),
  };
}

/** Istio's ztunnel DaemonSet as its chart makes it (`labels` on the DaemonSet). */
export function ztunnel(ns = "istio-system", image = "docker.io/istio/ztunnel:1.24.2-distroless", labels: StringMap = {}): PodController {
  return controller("ztunnel", ns, { labels: { app: "ztunnel", ...labels }, containers: [{ name: "istio-proxy", image }] });
}

/** A Gateway API Gateway; `istio-waypoint` class by default, not programmed (no address) unless `address`. */
export function gateway(name: string, ns: string, labels: StringMap = {}, gatewayClassName = "istio-waypoint", address?: string): KubeGateway {
  return { metadata: { name, namespace: ns, labels }, spec: { gatewayClassName }, ...(address ? { status: { addresses: [{ value: address }] } } : {}) };
}

/** A discovered Istio mesh of cluster1 in istio-system (Istio 1.24.2 unless `version`), with ztunnel and waypoints when asked. */
export function istioMesh(options: { revision?: string; version?: string; ztunnel?: boolean; waypoints?: Waypoint[] } = {}): Mesh {
  const controllerName = options.revision ? `istiod-${options.revision}` : "istiod";
  return {
    kind: "Mesh",
    metadata: { name: `${controllerName}-istio--system-cluster1`, cluster: "cluster1" },
    spec: {
      type: "istio",
      cluster: "cluster1",
      namespace: "istio-system",
      version: options.version ?? "1.24.2",
      istio: {
        ...(options.revision ? { revision: options.revision } : {}),
        trustDomain: "cluster.local",
        istiodServiceAccount: controllerName,
        smartDnsProxyingEnabled: false,
        gateways: [],
        ...(options.ztunnel ? { ambient: { ztunnel: { namespace: "istio-system", version: "1.24.2" } } } : {}),
        ...(options.waypoints ? { waypoints: options.waypoints } : {}),
      },
    },
  };
}

export function cluster(objects: Partial<Omit<ClusterObjects, "cluster">> = {}): ClusterObjects {
  return {
    cluster: "cluster1",
    deployments: [],
    statefulSets: [],
    daemonSets: [],
    replicaSets: [],
    pods: [],
    services: [],
    configMaps: [],
    nodes: [],
    ...objects,
  };
}
