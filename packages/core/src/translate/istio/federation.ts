import type { Gateway, Mesh } from "../../api/index";
import { compareStrings } from "../compare";
import { DEFAULT_HOSTNAME_SUFFIX, type FederatedExport } from "../virtual-mesh/federation-plan";
import type { Membership } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import { generatedLabel } from "../output/naming";
import { trustDomainOf } from "../virtual-mesh/trust-domains";
import type { ObjectDraft } from "../output/sink";
import { portName, serviceEntryProtocol, type ServicePort } from "./ports";

const IP = /^(\d{1,3}\.){3}\d{1,3}$|:/;

/** The label Istio's injector puts on pods whose sidecar speaks Istio mTLS. */
export const TLS_MODE_LABEL = "security.istio.io/tlsMode";

type Endpoint = FederatedExport["destination"]["spec"]["endpoints"][number];

/**
 * Whether an endpoint's pod speaks Istio mTLS: its labels say so (the injector's label) or discovery
 * saw an Istio sidecar in it (pods injected by other means may lack the label). Behind an
 * AUTO_PASSTHROUGH gateway Istio keeps only such endpoints, because the gateway cannot terminate
 * the client's mTLS for a pod that would not.
 */
export function speaksIstioMtls(endpoint: Endpoint): boolean {
  return endpoint.labels[TLS_MODE_LABEL] === "istio" || (endpoint.labels[TLS_MODE_LABEL] === undefined && endpoint.sidecar === "istio");
}

/**
 * The identities a federated destination's servers present: the SPIFFE IDs of its backing workloads'
 * service accounts in its own mesh's trust domain. Remote clients pin them (`subjectAltNames`), so a
 * certificate from the shared root issued to anything else is refused.
 */
export function serverIdentities(exported: FederatedExport, model: Model): string[] {
  const { destination } = exported;
  const trustDomain = trustDomainOf(model.meshOf(destination));
  const accounts = new Set(model.backingWorkloads(destination).map((w) => w.spec.serviceAccount));
  return [...accounts].sort(compareStrings).map((sa) => `spiffe://${trustDomain}/ns/${destination.spec.namespace}/sa/${sa}`);
}

function entryPorts(ports: readonly ServicePort[]) {
  return ports.map((p) => ({ number: p.port, name: portName(p), protocol: serviceEntryProtocol(p) }));
}

/**
 * Who may see the gateway-side entry for a federated host: the east-west gateways that route to it.
 * docs/resources.md#virtualmesh says `["."]`, which is right when the gateways run in the Istio
 * namespace; gateways in their own namespace (a common hardened setup) would not see it, so their
 * namespaces are added.
 */
export function gatewayExportTo(exported: FederatedExport, namespace: string): string[] {
  const namespaces = new Set(exported.gateways.map((g) => (g.namespace === namespace ? "." : g.namespace)));
  return [...namespaces].sort(compareStrings);
}

/**
 * In every mesh a destination is federated to, a ServiceEntry for its federated host
 * (docs/resources.md#virtualmesh): MESH_INTERNAL, the stable virtual IP, one endpoint per east-west
 * gateway address on the gateway's TLS port; resolution STATIC for IPs, DNS as soon as one address
 * is a hostname; `subjectAltNames` the destination's workload identities, so clients verify whom
 * they reach through the gateway. The object is the same in every mesh (up to API version and Istio
 * namespace), so it is built once and shared.
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
    subjectAltNames: orUndefined(serverIdentities(exported, model)),
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

function orUndefined<T>(list: T[]): T[] | undefined {
  return list.length > 0 ? list : undefined;
}

/**
 * On the destination's own cluster, a ServiceEntry for its federated host with the service's pod
 * IPs and labels (docs/resources.md#virtualmesh): the east-west gateway routes by SNI, and this
 * gives it an `outbound|<port>|<subset>|<federated host>` cluster to route to. Only the gateways
 * see it (`gatewayExportTo`), so local clients keep using the Service. Only pods that speak Istio
 * mTLS are listed, each labelled `security.istio.io/tlsMode: istio` explicitly (`speaksIstioMtls`);
 * the virtual IP is its address too, as Istio requires of an entry with TCP ports. Undefined when
 * no such pod is running: Istio rejects a STATIC entry without endpoints, and there is nothing to
 * route to.
 */
export function gatewayServiceEntry(exported: FederatedExport, model: Model, mesh: Mesh): ObjectDraft | undefined {
  const { ports } = exported.destination.spec;
  const endpoints = exported.destination.spec.endpoints.filter(speaksIstioMtls);
  if (endpoints.length === 0) return undefined;
  const podPorts = Object.fromEntries(ports.filter((p) => typeof p.targetPort === "number").map((p) => [portName(p), p.targetPort as number]));
  return {
    apiVersion: model.istioVersions(mesh.spec.cluster).networking,
    kind: "ServiceEntry",
    name: exported.objectName,
    namespace: mesh.spec.namespace,
    spec: {
      hosts: [exported.host],
      addresses: [exported.address],
      exportTo: gatewayExportTo(exported, mesh.spec.namespace),
      location: "MESH_INTERNAL",
      resolution: "STATIC",
      ports: entryPorts(ports),
      endpoints: [...endpoints]
        .sort((a, b) => compareStrings(a.ip, b.ip))
        .map((e) => ({
          address: e.ip,
          labels: { ...e.labels, [TLS_MODE_LABEL]: "istio" },
          ports: Object.keys(podPorts).length > 0 ? podPorts : undefined,
        })),
    },
    parents: exported.virtualMeshParents,
  };
}

/**
 * The Gateway on an east-west gateway of a mesh that exports destinations
 * (docs/resources.md#virtualmesh): its TLS port, AUTO_PASSTHROUGH (the client's mTLS goes through
 * untouched to the pod, routed by SNI), hosts `*.<cluster>.<suffix>` — only this cluster's own
 * federated hosts, so the gateway never relays a caller on to the federated hosts of a third
 * cluster that this mesh itself imports. The port is the gateway's container port, which Istio
 * listens on whatever Service port fronts it.
 */
export function eastWestGateway(member: Membership, gateway: Gateway, model: Model): ObjectDraft {
  const suffix = member.virtualMesh.spec.federation?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX;
  return {
    apiVersion: model.istioVersions(member.mesh.spec.cluster).networking,
    kind: "Gateway",
    name: generatedLabel(member.virtualMesh.metadata.name, gateway.name),
    namespace: gateway.namespace,
    spec: {
      selector: gateway.selector,
      servers: [
        {
          port: { number: gateway.containerPort, name: "tls", protocol: "TLS" },
          tls: { mode: "AUTO_PASSTHROUGH" },
          hosts: [`*.${member.mesh.spec.cluster}.${suffix}`],
        },
      ],
    },
    parents: [{ kind: "VirtualMesh", name: member.virtualMesh.metadata.name }],
  };
}
