import { readFileSync } from "node:fs";
import type { ClusterObjects } from "@meshplane/core";
import { parseAllDocuments } from "yaml";

/** Where each kind of a fixture goes in ClusterObjects; apiVersion is checked so a typo cannot hide. */
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
} as const;
type ListName = (typeof LISTS)[keyof typeof LISTS];

function isListKey(key: string): key is keyof typeof LISTS {
  return Object.hasOwn(LISTS, key);
}

/**
 * Reads a multi-document YAML fixture into the ClusterObjects an agent would list from `cluster`.
 * The optional lists (endpoints, endpointSlices, namespaces) are present only when the fixture has
 * objects of that kind, as when an agent cannot list them. Throws on a document of any other kind or
 * on invalid YAML, so a broken fixture fails loudly rather than silently shrinking the cluster.
 */
export function loadCluster(path: string, cluster: string): ClusterObjects {
  const lists = new Map<ListName, unknown[]>();
  for (const doc of parseAllDocuments(readFileSync(path, "utf8"))) {
    if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors[0]?.message}`);
    const object = doc.toJS() as { apiVersion?: string; kind?: string; metadata?: { name?: string } } | null;
    if (object === null) continue;
    const key = `${object.apiVersion}/${object.kind}`;
    if (!isListKey(key)) throw new Error(`${path}: unexpected ${key} ${object.metadata?.name ?? ""}`);
    lists.set(LISTS[key], [...(lists.get(LISTS[key]) ?? []), object]);
  }
  const list = (name: ListName) => lists.get(name) ?? [];
  const optional = (name: ListName) => (lists.has(name) ? { [name]: list(name) } : {});
  // The fixtures are API server output; discovery's structural types are the contract we test here.
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
  } as ClusterObjects;
}
