import { z } from "zod";
import { compareStrings } from "../compare";
import { parseAnnotationJson } from "../output/annotation-json";
import { apiVersionOf } from "../output/generated-kinds";
import type { DraftSink, ObjectDraft, Parent } from "../output/sink";
import type { GlobalService } from "./ambient-federation";
import type { Membership } from "./membership";

/** The east-west gateway's name, as Istio's samples/multicluster/gen-eastwest-gateway.sh --ambient names it. */
export const EAST_WEST_GATEWAY = "istio-eastwestgateway";
/** The GatewayClass istiod registers for east-west gateways when AMBIENT_ENABLE_MULTI_NETWORK is on. */
const EAST_WEST_CLASS = "istio-east-west";
/** The label a remote istiod reads an east-west gateway's network from. */
const NETWORK_LABEL = "topology.istio.io/network";
/** Istio's label that makes a Service global under the `ambient` profile's serviceScopeConfigs. */
export const LABEL_GLOBAL = "istio.io/global";

/**
 * On a generated east-west gateway: the JSON array, sorted, of the Services (`namespace/name`) of its
 * cluster that the agent labels `istio.io/global: "true"` (docs/ambient.md#ambient-multicluster).
 * The signed snapshot carries the list this way, so a Service is made global only beside the
 * gateway that carries its traffic between clusters. Always present (`[]` when no service is
 * global there), so the agent can release every label it set.
 */
export const ANNOTATION_GLOBAL_SERVICES = "meshplane.dev/global-services";

/** `namespace/name` of a Service: a namespace (DNS-1123 label) and a Service name (DNS-1035 label). */
const SERVICE_REF = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?\/[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** ANNOTATION_GLOBAL_SERVICES as it must be: `namespace/name` strings, no more than a cluster's worth. */
const globalServiceRefs = z.array(z.string().regex(SERVICE_REF)).max(100_000);

/**
 * The Services ANNOTATION_GLOBAL_SERVICES lists, or undefined when the text is not such a list (the
 * agent then labels nothing for that gateway). For the agent, which validates every input from the
 * control plane.
 */
export function parseGlobalServices(text: string): { namespace: string; name: string }[] | undefined {
  return parseAnnotationJson(text, globalServiceRefs)?.map((ref) => {
    const [namespace, name] = ref.split("/") as [string, string];
    return { namespace, name };
  });
}

/**
 * The east-west gateway of one Istio namespace of a cluster: where it goes, its network, and the
 * Services made global there.
 */
export interface PlannedEastWestGateway {
  cluster: string;
  namespace: string;
  network: string;
  /** `namespace/name` of each global service with a copy in the members it serves, sorted. */
  services: readonly string[];
  parents: readonly Parent[];
}

/**
 * The east-west gateways of `members` (those whose Istio and network setup their VirtualMesh
 * accepts; docs/ambient.md#ambient-multicluster): one per member whose network discovery reports
 * and that has no east-west gateway of the user's own (reused: none is generated). A member whose
 * network discovery cannot see (an agent that predates it) gets none: the label would be a guess.
 * Members whose control planes share a namespace of one cluster (revisions) share its one gateway,
 * which lists the global services of all of them and has all their VirtualMeshes as parents; they
 * share its network too, which is the namespace's label.
 */
export function planEastWestGateways(members: readonly Membership[], globalServices: readonly GlobalService[]): PlannedEastWestGateway[] {
  const byNamespace = new Map<string, { cluster: string; namespace: string; network: string; services: Set<string>; parents: Set<string> }>();
  for (const { mesh, virtualMesh } of members) {
    const ambient = mesh.spec.istio?.ambient;
    const network = ambient?.multiNetwork?.network;
    if (network === undefined || (ambient?.eastWestGateways ?? []).length > 0) continue;
    const key = `${mesh.spec.cluster}/${mesh.spec.namespace}`;
    const entry = byNamespace.get(key) ?? { cluster: mesh.spec.cluster, namespace: mesh.spec.namespace, network, services: new Set(), parents: new Set() };
    byNamespace.set(key, entry);
    entry.parents.add(virtualMesh.metadata.name);
    for (const s of globalServices) {
      if (s.virtualMesh === virtualMesh && s.destinations.some((d) => d.spec.mesh === mesh.metadata.name)) entry.services.add(`${s.namespace}/${s.name}`);
    }
  }
  return [...byNamespace.values()].map(({ services, parents, ...where }) => ({
    ...where,
    services: [...services].sort(compareStrings),
    parents: [...parents].sort(compareStrings).map((name) => ({ kind: "VirtualMesh" as const, name })),
  }));
}

/**
 * An east-west gateway as meshplane generates it: the Gateway API Gateway Istio's
 * `samples/multicluster/gen-eastwest-gateway.sh --ambient` writes — class `istio-east-west` in the
 * control plane's namespace, labelled with the cluster's network, one HBONE listener on 15008 that
 * terminates Istio's mTLS — with the Services to make global in ANNOTATION_GLOBAL_SERVICES.
 */
export function eastWestGatewayDraft(gateway: PlannedEastWestGateway): ObjectDraft {
  return {
    apiVersion: apiVersionOf("Gateway", undefined, "gateway.networking.k8s.io"),
    kind: "Gateway",
    name: EAST_WEST_GATEWAY,
    namespace: gateway.namespace,
    spec: {
      gatewayClassName: EAST_WEST_CLASS,
      listeners: [
        {
          name: "mesh",
          port: 15008,
          protocol: "HBONE",
          tls: { mode: "Terminate", options: { "gateway.istio.io/tls-terminate-mode": "ISTIO_MUTUAL" } },
        },
      ],
    },
    parents: gateway.parents,
    labels: { [NETWORK_LABEL]: gateway.network },
    annotations: { [ANNOTATION_GLOBAL_SERVICES]: JSON.stringify(gateway.services) },
  };
}

/** Adds each planned east-west gateway to its cluster. */
export function eastWestGatewayObjects(gateways: readonly PlannedEastWestGateway[], sink: DraftSink): void {
  for (const gateway of gateways) sink.add(gateway.cluster, eastWestGatewayDraft(gateway));
}
