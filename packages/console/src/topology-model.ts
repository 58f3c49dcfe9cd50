/**
 * What the topology page draws, derived from the API alone: each mesh with its cluster, trust domain
 * and trust state, and each federation link — the destinations of one mesh exported to another,
 * through which east-west gateway — read from the ServiceEntries the snapshots really carry.
 */
import { DEFAULT_HOSTNAME_SUFFIX, type PlacedObject, type ResourceView, claimantOf, parentsOf } from "@meshplane/core/views";

export interface MeshNode {
  name: string;
  cluster: string;
  /** Its Istio namespace. */
  namespace?: string;
  trustDomain?: string;
  /** VirtualMesh it belongs to, and its trust state there. */
  virtualMesh?: string;
  state?: string;
  trust?: string;
}

export interface FederationLink {
  virtualMesh: string;
  /** The exporting mesh (where the destinations run) and the importing one (where they are called). */
  from: string;
  to: string;
  /** `namespace/service` of each exported destination. */
  destinations: string[];
  /** Address:port of the exporting mesh's east-west gateway, as the importing ServiceEntries name it. */
  gateways: string[];
}

export function topology(
  meshes: readonly { metadata: { name: string; cluster: string }; spec: { namespace?: string; istio?: { trustDomain: string } } }[],
  resources: readonly ResourceView[],
  objects: readonly PlacedObject[],
): { nodes: MeshNode[]; links: FederationLink[] } {
  const virtualMeshes = resources.filter((r) => r.kind === "VirtualMesh");
  const nodes: MeshNode[] = meshes.map((m) => {
    // The VirtualMesh the mesh belongs to, by the translator's claim order (others naming it were refused).
    const v = claimantOf(m.metadata.name, virtualMeshes);
    const s = v?.status?.meshes?.[m.metadata.name];
    return {
      name: m.metadata.name,
      cluster: m.metadata.cluster,
      ...(m.spec.namespace ? { namespace: m.spec.namespace } : {}),
      ...(m.spec.istio?.trustDomain ? { trustDomain: m.spec.istio.trustDomain } : {}),
      ...(v ? { virtualMesh: v.metadata.name, state: s?.state ?? v.status?.state ?? "PENDING" } : {}),
      ...(s?.trust ? { trust: s.trust.state } : {}),
    };
  });
  const links = new Map<string, FederationLink>();
  for (const v of virtualMeshes) {
    const suffix = `.${(v.spec.federation as { hostnameSuffix?: string } | undefined)?.hostnameSuffix ?? DEFAULT_HOSTNAME_SUFFIX}`;
    const members = nodes.filter((n) => n.virtualMesh === v.metadata.name);
    // The importing mesh is the one whose Istio namespace holds the entry; the exporting one, the member in the named cluster.
    const meshIn = (cluster: string, namespace?: string) =>
      (members.find((n) => n.cluster === cluster && (namespace === undefined || n.namespace === namespace)) ?? members.find((n) => n.cluster === cluster))
        ?.name;
    for (const { cluster, object } of objects) {
      if (object.kind !== "ServiceEntry" || !parentsOf(object).some((p) => p.kind === "VirtualMesh" && p.name === v.metadata.name)) continue;
      for (const host of object.spec?.hosts ?? []) {
        if (!host.endsWith(suffix)) continue;
        // <svc>.<ns>.svc.<cluster>.<suffix>; the entry in the exporting cluster itself is its gateway's route in.
        const [service, namespace, svc, source] = host.slice(0, -suffix.length).split(".");
        if (svc !== "svc" || !service || !namespace || !source || source === cluster) continue;
        const from = meshIn(source);
        const to = meshIn(cluster, object.metadata.namespace);
        if (!from || !to) continue;
        const key = `${v.metadata.name} ${from} ${to}`;
        const link = links.get(key) ?? { virtualMesh: v.metadata.name, from, to, destinations: [], gateways: [] };
        if (!link.destinations.includes(`${namespace}/${service}`)) link.destinations.push(`${namespace}/${service}`);
        for (const e of object.spec?.endpoints ?? [])
          for (const port of Object.values(e.ports ?? {})) if (!link.gateways.includes(`${e.address}:${port}`)) link.gateways.push(`${e.address}:${port}`);
        links.set(key, link);
      }
    }
  }
  for (const l of links.values()) l.destinations.sort();
  return {
    nodes: nodes.sort((a, b) => a.cluster.localeCompare(b.cluster) || a.name.localeCompare(b.name)),
    links: [...links.values()].sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to)),
  };
}
