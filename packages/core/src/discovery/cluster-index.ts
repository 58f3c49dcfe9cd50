import { type ClusterObjects, type ConfigMap, type KubeGateway, type Node, type OwnerReference, type Pod, type StringMap, refKey } from "./kube";
import type { WorkloadKind } from "./names";
import { ownValue, setOwn } from "../own-keys";

/**
 * Lookups over one cluster's objects, built once per `discover` call so every rule below is a map
 * read rather than a scan (a cluster may hold tens of thousands of pods).
 */
export interface ClusterIndex {
  readonly objects: ClusterObjects;
  readonly cluster: string;
  namespaceLabels(namespace: string): StringMap;
  namespaceAnnotations(namespace: string): StringMap;
  configMap(namespace: string, name: string): ConfigMap | undefined;
  node(name: string): Node | undefined;
  /** A Gateway API Gateway, when the cluster serves the Gateway API and has it. */
  gateway(namespace: string, name: string): KubeGateway | undefined;
  pod(namespace: string, name: string): Pod | undefined;
  /** Pods in `namespace`, sorted by name. */
  podsIn(namespace: string): readonly Pod[];
  /** Pods the controller owns (through its ReplicaSets for a Deployment), sorted by name. */
  podsOf(kind: WorkloadKind, namespace: string, name: string, uid?: string): readonly Pod[];
}

interface OwnedPod {
  pod: Pod;
  /** uid the pod's owner chain names for the controller, when the objects carry uids. */
  ownerUid?: string;
}

/** Orders objects by metadata.name, the order every output list is sorted in. */
export function byName(a: { metadata: { name: string } }, b: { metadata: { name: string } }): number {
  return compareStrings(a.metadata.name, b.metadata.name);
}

/** The managing owner: the one marked controller, else the first (hand-made objects omit the flag). */
function controllerOf(refs: OwnerReference[] | undefined): OwnerReference | undefined {
  return refs?.find((ref) => ref.controller === true) ?? refs?.[0];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function keyed<T extends { metadata: { name: string; namespace?: string } }>(list: readonly T[]): Map<string, T> {
  return new Map(list.map((o) => [refKey(o.metadata.namespace, o.metadata.name), o] as const));
}

/** Builds the index. Pure: reads `objects` only and never mutates them. */
export function indexCluster(objects: ClusterObjects): ClusterIndex {
  const namespaces = new Map((objects.namespaces ?? []).map((ns) => [ns.metadata.name, ns] as const));
  const nodes = new Map(objects.nodes.map((node) => [node.metadata.name, node] as const));
  const configMaps = keyed(objects.configMaps);
  const replicaSets = keyed(objects.replicaSets);
  const pods = keyed(objects.pods);
  const gateways = keyed(objects.gateways ?? []);
  const sortedPods = objects.pods.toSorted(byName);

  const podsByNamespace = new Map<string, Pod[]>();
  const owned = new Map<string, OwnedPod[]>();
  for (const pod of sortedPods) {
    const namespace = pod.metadata.namespace ?? "";
    push(podsByNamespace, namespace, pod);
    const owner = controllerOf(pod.metadata.ownerReferences);
    if (owner?.kind === "StatefulSet" || owner?.kind === "DaemonSet") {
      push(owned, `${owner.kind}/${refKey(namespace, owner.name)}`, { pod, ownerUid: owner.uid });
    } else if (owner?.kind === "ReplicaSet") {
      const replicaSet = replicaSets.get(refKey(namespace, owner.name));
      // A pod whose ReplicaSet was not listed (or belongs to another uid) has no known Deployment.
      if (!replicaSet || (owner.uid && replicaSet.metadata.uid && owner.uid !== replicaSet.metadata.uid)) continue;
      const deployment = controllerOf(replicaSet.metadata.ownerReferences);
      if (deployment?.kind === "Deployment") {
        push(owned, `Deployment/${refKey(namespace, deployment.name)}`, { pod, ownerUid: deployment.uid });
      }
    }
  }

  return {
    objects,
    cluster: objects.cluster,
    namespaceLabels: (namespace) => namespaces.get(namespace)?.metadata.labels ?? {},
    namespaceAnnotations: (namespace) => namespaces.get(namespace)?.metadata.annotations ?? {},
    configMap: (namespace, name) => configMaps.get(refKey(namespace, name)),
    node: (name) => nodes.get(name),
    gateway: (namespace, name) => gateways.get(refKey(namespace, name)),
    pod: (namespace, name) => pods.get(refKey(namespace, name)),
    podsIn: (namespace) => podsByNamespace.get(namespace) ?? [],
    podsOf: (kind, namespace, name, uid) =>
      (owned.get(`${kind}/${refKey(namespace, name)}`) ?? [])
        // A controller deleted and re-created under the same name does not own the old pods.
        .filter((entry) => !uid || !entry.ownerUid || entry.ownerUid === uid)
        .map((entry) => entry.pod),
  };
}

/** Whether every key/value of `selector` is in `labels`. An empty selector selects nothing. */
export function selects(selector: StringMap | undefined, labels: StringMap | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([key, value]) => ownValue(labels, key) === value);
}

/** A copy of `map` with keys in code-point order, so serialised output is byte-stable. */
export function sortedRecord(map: StringMap | undefined): StringMap {
  const out: StringMap = {};
  for (const key of Object.keys(map ?? {}).toSorted()) setOwn(out, key, (map as StringMap)[key] as string);
  return out;
}

/** Code-point string comparison (not locale-dependent, so output is the same on every host). */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
