import type { ClusterObjects } from "./kube";

/** Where each kind of object goes in ClusterObjects; apiVersion is part of the key so a typo cannot hide. */
const LISTS = {
  "apps/v1/Deployment": "deployments",
  "apps/v1/StatefulSet": "statefulSets",
  "apps/v1/DaemonSet": "daemonSets",
  "apps/v1/ReplicaSet": "replicaSets",
  "v1/Pod": "pods",
  "v1/Service": "services",
  "v1/Endpoints": "endpoints",
  "discovery.k8s.io/v1/EndpointSlice": "endpointSlices",
  "v1/ConfigMap": "configMaps",
  "v1/Node": "nodes",
  "v1/Namespace": "namespaces",
  "gateway.networking.k8s.io/v1/Gateway": "gateways",
  "apiextensions.k8s.io/v1/CustomResourceDefinition": "customResourceDefinitions",
} as const;
type ListName = (typeof LISTS)[keyof typeof LISTS];

/**
 * Sorts a flat list of Kubernetes objects (as `kubectl get -o yaml` or the API returns them) into the
 * ClusterObjects discovery reads. The optional lists (endpoints, endpointSlices, namespaces, gateways, customResourceDefinitions) are
 * present only when objects of that kind are, as when they could not be listed. Throws on any other
 * kind, so a wrong file fails loudly rather than silently shrinking the cluster.
 */
export function groupClusterObjects(cluster: string, objects: readonly unknown[]): ClusterObjects {
  const lists = new Map<ListName, unknown[]>();
  for (const raw of objects) {
    const object = raw as { apiVersion?: string; kind?: string; metadata?: { name?: string } };
    const key = `${object.apiVersion}/${object.kind}`;
    if (!Object.hasOwn(LISTS, key)) throw new Error(`unexpected ${key} ${object.metadata?.name ?? ""}`.trim());
    const list = LISTS[key as keyof typeof LISTS];
    lists.set(list, [...(lists.get(list) ?? []), object]);
  }
  const list = (name: ListName) => lists.get(name) ?? [];
  const optional = (name: ListName) => (lists.has(name) ? { [name]: list(name) } : {});
  return {
    cluster,
    deployments: list("deployments"),
    statefulSets: list("statefulSets"),
    daemonSets: list("daemonSets"),
    replicaSets: list("replicaSets"),
    pods: list("pods"),
    services: list("services"),
    configMaps: list("configMaps"),
    nodes: list("nodes"),
    ...optional("endpoints"),
    ...optional("endpointSlices"),
    ...optional("namespaces"),
    ...optional("gateways"),
    ...optional("customResourceDefinitions"),
  } as ClusterObjects;
}
