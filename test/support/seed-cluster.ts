import { readFileSync } from "node:fs";
import { objectKey } from "@meshplane/core";
import { parseAllDocuments } from "yaml";
import type { LabCluster } from "../lab/cluster";

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    uid?: string;
    resourceVersion?: string;
    creationTimestamp?: string;
    ownerReferences?: { kind: string; name: string; uid?: string }[];
  };
  status?: unknown;
} & Record<string, unknown>;

const ORDER = ["Namespace", "Node", "ConfigMap", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod", "Service", "EndpointSlice", "Gateway"];
const PLURAL: Record<string, string> = {
  Namespace: "namespaces",
  Node: "nodes",
  ConfigMap: "configmaps",
  Deployment: "deployments",
  StatefulSet: "statefulsets",
  DaemonSet: "daemonsets",
  ReplicaSet: "replicasets",
  Pod: "pods",
  Service: "services",
  EndpointSlice: "endpointslices",
  // The chart's admission policy (lab-agents.ts installs it with pathOf): not a plain "s" plural.
  ValidatingAdmissionPolicy: "validatingadmissionpolicies",
};

export function pathOf(obj: { apiVersion: string; kind: string; metadata: { name?: string; namespace?: string } }, withName = false): string {
  const base = obj.apiVersion.includes("/") ? `/apis/${obj.apiVersion}` : `/api/${obj.apiVersion}`;
  const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : "";
  const plural = PLURAL[obj.kind] ?? `${obj.kind.toLowerCase()}s`;
  return `${base}${ns}/${plural}${withName ? `/${obj.metadata.name}` : ""}`;
}

/**
 * Creates the objects of a discovery fixture in a lab cluster, as controllers would have left them:
 * owners first, each ownerReference rewritten to the uid the apiserver gave its owner, and statuses
 * (pod IPs, load balancer addresses, node addresses, a waypoint's addresses) written through the /status subresource —
 * no controller runs in the lab. Throws with the apiserver's message on any failure.
 */
export async function seedCluster(cluster: LabCluster, fixture: string, rename: (text: string) => string = (t) => t): Promise<void> {
  const objects = parseAllDocuments(rename(readFileSync(fixture, "utf8")))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null)
    .sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
  const uids = new Map<string, string>();
  for (const obj of objects) {
    const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = obj.metadata;
    const ns = metadata.namespace ?? "";
    const owners = metadata.ownerReferences?.map((o) => ({ ...o, uid: uids.get(objectKey(o.kind, ns, o.name)) ?? o.uid }));
    const body: Obj = { ...obj, metadata: { ...metadata, ...(owners ? { ownerReferences: owners } : {}) } };
    if (obj.kind === "Service") {
      // The lab's service range is its own: let the apiserver allocate cluster IPs.
      const { clusterIP: _ip, clusterIPs: _ips, ...spec } = obj.spec as Record<string, unknown>;
      body.spec = spec;
    }
    let created = await cluster.request("POST", pathOf(obj), body);
    if (created.status === 409) {
      // Built in (kube-system, default): take the fixture's labels onto the existing object.
      created = await cluster.request("PATCH", pathOf(obj, true), { metadata: { labels: metadata.labels ?? {}, annotations: metadata.annotations ?? {} } });
    }
    if (!created.ok) throw new Error(`seed ${obj.kind} ${ns}/${obj.metadata.name}: ${created.status} ${created.body.message ?? ""}`);
    uids.set(objectKey(obj.kind, ns, obj.metadata.name), created.body.metadata?.uid as string);
    if (obj.status && ["Pod", "Service", "Node", "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Gateway"].includes(obj.kind)) {
      const status = await cluster.request("PUT", `${pathOf(obj, true)}/status`, { ...created.body, status: obj.status });
      if (!status.ok) throw new Error(`seed status of ${obj.kind} ${ns}/${obj.metadata.name}: ${status.status} ${status.body.message ?? ""}`);
    }
  }
}
