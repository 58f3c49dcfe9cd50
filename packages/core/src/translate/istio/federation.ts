import type { Gateway, Mesh } from "../../api/index";
import { compareStrings } from "../compare";
import { DEFAULT_HOSTNAME_SUFFIX, type FederatedExport } from "../federation-plan";
import type { Membership } from "../membership";
import type { Model } from "../model";
import { generatedName } from "../naming";
import type { ObjectDraft } from "../output";
import { portName, serviceEntryProtocol, type ServicePort } from "./ports";

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

function entryPorts(ports: readonly ServicePort[]) {
  return ports.map((p) => ({ number: p.port, name: portName(p), protocol: serviceEntryProtocol(p) }));
}

/**
 * Who may see the gateway-side entry for a federated host: the east-west gateways that route to it.
 * API.md §4 says `["."]`, which is right when the gateways run in the Istio namespace; gateways in
 * their own namespace (a common hardened setup) would not see it, so their namespaces are added.
 */
export function gatewayExportTo(exported: FederatedExport, namespace: string): string[] {
  const namespaces = new Set(exported.gateways.map((g) => (g.namespace === namespace ? "." : g.namespace)));
  return [...namespaces].sort(compareStrings);
}

/**
 * In every mesh a destination is federated to, a ServiceEntry for its federated host (API.md §4):
 * MESH_INTERNAL, the stable virtual IP, one endpoint per east-west gateway address on the gateway's
 * TLS port; resolution STATIC for IPs, DNS as soon as one address is a hostname. The object is
 * the same in every mesh (up to API version and Istio namespace), so it is built once and shared.
 */
export function remoteServiceEntries(exported: FederatedExport, model: Model, add: (cluster: string, draft: ObjectDraft) => void): void {
  const ports = exported.destination.spec.ports;
  const endpoints = exported.gateways
    .flatMap((gw) => gw.addresses.map((a) => ({ address: (a.ip ?? a.hostname) as string, gw })))
    .filter((e) => e.address !== undefined && e.address !== "")
    .sort((a, b) => compareStrings(a.address, b.address))
    .map(({ address, gw }) => ({ address, ports: Object.fromEntries(ports.map((p) => [portName(p), gw.externalPort])) }));
  const spec = {
    hosts: [exported.host],
    addresses: [exported.address],
    location: "MESH_INTERNAL",
    resolution: endpoints.every((e) => IP.test(e.address)) ? "STATIC" : "DNS",
    ports: entryPorts(ports),
    endpoints,
  };
  // One draft per API version and namespace, shared by every cluster that gets it.
  const drafts: ObjectDraft[] = [];
  for (const mesh of exported.targets) {
    const apiVersion = model.istioVersions(mesh.spec.cluster).networking;
    const namespace = mesh.spec.namespace;
    let draft = drafts.find((d) => d.apiVersion === apiVersion && d.namespace === namespace);
    if (draft === undefined) {
      draft = { apiVersion, kind: "ServiceEntry", name: exported.objectName, namespace, spec, parents: exported.virtualMeshParents };
      drafts.push(draft);
    }
    add(mesh.spec.cluster, draft);
  }
}

/**
 * On the destination's own cluster, a ServiceEntry for its federated host with the service's pod
 * IPs and labels (API.md §4): the east-west gateway routes by SNI, and this gives it an
 * `outbound|<port>|<subset>|<federated host>` cluster to route to. Only the gateways see it
 * (`gatewayExportTo`), so local clients keep using the Service. Undefined when no pod is running:
 * Istio rejects a STATIC entry without endpoints, and there is nothing to route to.
 */
export function gatewayServiceEntry(exported: FederatedExport, model: Model, mesh: Mesh): ObjectDraft | undefined {
  const { ports, endpoints } = exported.destination.spec;
  if (endpoints.length === 0) return undefined;
  const podPorts = Object.fromEntries(ports.filter((p) => typeof p.targetPort === "number").map((p) => [portName(p), p.targetPort as number]));
  return {
    apiVersion: model.istioVersions(mesh.spec.cluster).networking,
    kind: "ServiceEntry",
    name: exported.objectName,
    namespace: mesh.spec.namespace,
    spec: {
      hosts: [exported.host],
      exportTo: gatewayExportTo(exported, mesh.spec.namespace),
      location: "MESH_INTERNAL",
      resolution: "STATIC",
      ports: entryPorts(ports),
      endpoints: [...endpoints]
        .sort((a, b) => compareStrings(a.ip, b.ip))
        .map((e) => ({
          address: e.ip,
          labels: Object.keys(e.labels).length > 0 ? e.labels : undefined,
          ports: Object.keys(podPorts).length > 0 ? podPorts : undefined,
        })),
    },
    parents: exported.virtualMeshParents,
  };
}

/**
 * The Gateway on an east-west gateway of a mesh that exports destinations (API.md §4): its TLS port,
 * AUTO_PASSTHROUGH (the client's mTLS goes through untouched to the pod, routed by SNI), hosts
 * `*.<suffix>`. The port is the gateway's container port, which Istio listens on whatever Service
 * port fronts it.
 */
export function eastWestGateway(member: Membership, gateway: Gateway, model: Model): ObjectDraft {
  const suffix = member.virtualMesh.spec.federation?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX;
  return {
    apiVersion: model.istioVersions(member.mesh.spec.cluster).networking,
    kind: "Gateway",
    name: generatedName(member.virtualMesh.metadata.name, gateway.name),
    namespace: gateway.namespace,
    spec: {
      selector: gateway.selector,
      servers: [{ port: { number: gateway.containerPort, name: "tls", protocol: "TLS" }, tls: { mode: "AUTO_PASSTHROUGH" }, hosts: [`*.${suffix}`] }],
    },
    parents: [{ kind: "VirtualMesh", name: member.virtualMesh.metadata.name }],
  };
}
