import type { Gateway, Mesh } from "../api/discovery";
import { type ClusterIndex, compareStrings, selects, sortedRecord } from "./cluster-index";
import type { Node, Pod, Service, ServicePort } from "./kube";
import { istioMeshFor } from "./mesh-choice";
import { requestedRevision } from "./sidecars";

/** The `istio` selector values that mark a gateway Service, and the gateway kind each means. */
const GATEWAY_KINDS = { ingressgateway: "ingress", eastwestgateway: "eastwest" } as const;

type Address = Gateway["addresses"][number];

/** The port cross-cluster TLS passthrough uses: `tls` itself, else the first `tls-*` by name. */
function tlsPort(service: Service): ServicePort | undefined {
  const ports = (service.spec.ports ?? []).filter((p) => p.name === "tls" || p.name?.startsWith("tls-"));
  return ports.find((p) => p.name === "tls") ?? ports.toSorted((a, b) => compareStrings(a.name ?? "", b.name ?? ""))[0];
}

function sortAddresses(addresses: Address[]): Address[] {
  const key = (a: Address) => `${a.ip ?? ""}\u0000${a.hostname ?? ""}`;
  const unique = new Map(addresses.map((a) => [key(a), a] as const));
  return [...unique.keys()].toSorted(compareStrings).map((k) => unique.get(k) as Address);
}

/** A node's reachable addresses: its ExternalIPs when it has any, else its InternalIPs. */
function nodeAddresses(node: Node): Address[] {
  const all = node.status?.addresses ?? [];
  const external = all.filter((a) => a.type === "ExternalIP");
  return (external.length > 0 ? external : all.filter((a) => a.type === "InternalIP")).map((a) => ({ ip: a.address }));
}

/**
 * Where clients outside the cluster reach the gateway. LoadBalancer status first; otherwise, for a
 * NodePort or pending LoadBalancer Service, the nodePort on the nodes running gateway pods (they work
 * with any externalTrafficPolicy), or on every node when no gateway pod is scheduled. Undefined for a
 * Service that is not reachable from outside (ClusterIP).
 */
function exposure(index: ClusterIndex, service: Service, port: ServicePort, pods: readonly Pod[]): Pick<Gateway, "externalPort" | "addresses"> | undefined {
  const ingress = service.status?.loadBalancer?.ingress ?? [];
  const fromStatus = ingress.flatMap((i): Address[] =>
    i.ip || i.hostname ? [{ ...(i.ip ? { ip: i.ip } : {}), ...(i.hostname ? { hostname: i.hostname } : {}) }] : [],
  );
  if (fromStatus.length > 0) return { externalPort: port.port, addresses: sortAddresses(fromStatus) };
  const type = service.spec.type ?? "ClusterIP";
  if ((type !== "NodePort" && type !== "LoadBalancer") || port.nodePort === undefined) return undefined;
  const podNodes = pods.flatMap((pod) => (pod.spec.nodeName ? [index.node(pod.spec.nodeName)] : [])).filter((n) => n !== undefined);
  const nodes = podNodes.length > 0 ? podNodes : index.objects.nodes;
  return { externalPort: port.nodePort, addresses: sortAddresses(nodes.flatMap(nodeAddresses)) };
}

/** The container port behind a Service port: a numeric targetPort, a named one looked up in the pods, else the port. */
function containerPort(port: ServicePort, pods: readonly Pod[]): number {
  if (typeof port.targetPort === "number") return port.targetPort;
  if (typeof port.targetPort === "string" && port.targetPort !== "") {
    for (const pod of pods) {
      for (const container of pod.spec.containers) {
        const found = container.ports?.find((p) => p.name === port.targetPort);
        if (found) return found.containerPort;
      }
    }
  }
  return port.port;
}

interface FoundGateway {
  gateway: Gateway;
  revision: string | undefined;
}

function discoverGateways(index: ClusterIndex): FoundGateway[] {
  const found: FoundGateway[] = [];
  for (const service of index.objects.services) {
    const selector = service.spec.selector ?? {};
    const istio = selector.istio;
    if (istio !== "ingressgateway" && istio !== "eastwestgateway") continue;
    const port = tlsPort(service);
    if (!port?.name) continue;
    const namespace = service.metadata.namespace ?? "";
    const pods = index.podsIn(namespace).filter((pod) => selects(selector, pod.metadata.labels));
    const reach = exposure(index, service, port, pods);
    if (!reach) continue;
    found.push({
      gateway: {
        kind: GATEWAY_KINDS[istio],
        name: service.metadata.name,
        namespace,
        selector: sortedRecord(selector),
        tlsPortName: port.name,
        externalPort: reach.externalPort,
        containerPort: containerPort(port, pods),
        addresses: reach.addresses,
      },
      revision: requestedRevision(pods[0]?.metadata.annotations, pods[0]?.metadata.labels, service.metadata.labels),
    });
  }
  return found;
}

/**
 * Returns `meshes` (sorted by name) with the cluster's ingress and east-west gateways
 * (docs/resources.md#discovery) attached to Istio meshes. A gateway goes to the mesh of its
 * revision, else to a mesh in its own namespace, else to the first Istio mesh — preferring the
 * default revision in either case. Gateways of a cluster without an Istio mesh are dropped: nothing
 * could program them.
 */
export function attachGateways(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  const byMesh = new Map<string, Gateway[]>();
  for (const { gateway, revision } of discoverGateways(index)) {
    const revisioned = revision === undefined || revision === "default" ? undefined : meshes.find((m) => m.spec.istio?.revision === revision);
    const local = meshes.filter((m) => m.spec.type === "istio" && m.spec.namespace === gateway.namespace);
    const mesh = revisioned ?? istioMeshFor(local.length > 0 ? local : meshes, undefined);
    if (!mesh) continue;
    byMesh.set(mesh.metadata.name, [...(byMesh.get(mesh.metadata.name) ?? []), gateway]);
  }
  return meshes.map((mesh) => {
    const gateways = byMesh.get(mesh.metadata.name);
    if (!mesh.spec.istio || !gateways) return mesh;
    const sorted = gateways.toSorted((a, b) => compareStrings(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
    return { ...mesh, spec: { ...mesh.spec, istio: { ...mesh.spec.istio, gateways: sorted } } };
  });
}
