import type { Destination } from "../api/discovery";
import { type ClusterIndex, compareStrings, sortedRecord } from "./cluster-index";
import { refKey } from "./kube";
import { podSidecar } from "./sidecars";

export type DestinationEndpoint = Destination["spec"]["endpoints"][number];

const SERVICE_NAME_LABEL = "kubernetes.io/service-name";
const ZONE_LABEL = "topology.kubernetes.io/zone";
const SUBZONE_LABEL = "topology.istio.io/subzone";

interface RawEndpoint {
  ip: string;
  namespace: string;
  nodeName?: string;
  zone?: string;
  podName?: string;
}

/** Locality, labels and sidecar of one address: the slice's zone wins, the pod's node fills the rest. */
function resolve(index: ClusterIndex, raw: RawEndpoint): DestinationEndpoint {
  const pod = raw.podName === undefined ? undefined : index.pod(raw.namespace, raw.podName);
  const nodeName = raw.nodeName ?? pod?.spec.nodeName;
  const nodeLabels = (nodeName === undefined ? undefined : index.node(nodeName))?.metadata.labels ?? {};
  const zone = raw.zone ?? nodeLabels[ZONE_LABEL];
  const subZone = nodeLabels[SUBZONE_LABEL];
  const sidecar = pod === undefined ? undefined : podSidecar(pod);
  return {
    ip: raw.ip,
    labels: sortedRecord(pod?.metadata.labels),
    ...(zone === undefined ? {} : { zone }),
    ...(subZone === undefined ? {} : { subZone }),
    ...(sidecar === undefined ? {} : { sidecar }),
  };
}

function fromSlices(index: ClusterIndex): Map<string, RawEndpoint[]> {
  const out = new Map<string, RawEndpoint[]>();
  for (const slice of index.objects.endpointSlices ?? []) {
    const service = slice.metadata.labels?.[SERVICE_NAME_LABEL];
    // FQDN slices name hosts, not IPs; an Endpoint here is an address a proxy can dial.
    if (service === undefined || (slice.addressType !== "IPv4" && slice.addressType !== "IPv6")) continue;
    const namespace = slice.metadata.namespace ?? "";
    const list = out.get(refKey(namespace, service)) ?? [];
    for (const endpoint of slice.endpoints ?? []) {
      // Kubernetes: a missing `ready` condition is to be read as ready.
      if (endpoint.conditions?.ready === false) continue;
      const podName = endpoint.targetRef?.kind === "Pod" ? endpoint.targetRef.name : undefined;
      for (const ip of endpoint.addresses) list.push({ ip, namespace, nodeName: endpoint.nodeName, zone: endpoint.zone, podName });
    }
    out.set(refKey(namespace, service), list);
  }
  return out;
}

function fromEndpoints(index: ClusterIndex): Map<string, RawEndpoint[]> {
  const out = new Map<string, RawEndpoint[]>();
  for (const endpoints of index.objects.endpoints ?? []) {
    const namespace = endpoints.metadata.namespace ?? "";
    const list = (endpoints.subsets ?? []).flatMap((subset) =>
      (subset.addresses ?? []).map((address) => ({
        ip: address.ip,
        namespace,
        nodeName: address.nodeName,
        podName: address.targetRef?.kind === "Pod" ? address.targetRef.name : undefined,
      })),
    );
    out.set(refKey(namespace, endpoints.metadata.name), list);
  }
  return out;
}

/**
 * A lookup from Service to its ready endpoints with locality (docs/resources.md#discovery), built
 * once per cluster. EndpointSlices are used when the input has them, else core/v1 Endpoints: the
 * two mirror each other, so reading both would only double-count. Each IP appears once (slices
 * overlap while being updated) and the list is sorted by IP.
 */
export function indexEndpoints(index: ClusterIndex): (namespace: string, service: string) => DestinationEndpoint[] {
  const raw = index.objects.endpointSlices !== undefined ? fromSlices(index) : fromEndpoints(index);
  return (namespace, service) => {
    const resolved = (raw.get(refKey(namespace, service)) ?? []).map((r) => resolve(index, r));
    // Sorting by the whole serialised endpoint makes the duplicate we keep independent of input order.
    const keyed = resolved.map((e) => [`${e.ip}\u0000${JSON.stringify(e)}`, e] as const).toSorted(([a], [b]) => compareStrings(a, b));
    const seen = new Set<string>();
    return keyed.flatMap(([, e]) => (seen.has(e.ip) ? [] : (seen.add(e.ip), [e])));
  };
}
