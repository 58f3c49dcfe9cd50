import type { ResourceSourceView } from "./source";
/**
 * The answers users ask for most, computed from what the API returns: for a destination, every
 * policy that applies in acceptance order (the fields each sets, its conflicts), who may call it,
 * where it is federated and its generated objects; for a policy, its generated objects. The CLI's
 * `describe` prints them and the console draws them. Pure: the caller fetches.
 */
import type { VirtualMeshSpec } from "../api/index";
import { claimantOf } from "../translate/virtual-mesh/claim-order";
import { federatedHost } from "../translate/virtual-mesh/federated-host";

export interface ResourceStatusView {
  state: string;
  observedGeneration?: number;
  errors?: string[];
  destinations?: Record<string, { state: string; acceptanceOrder?: number; errors?: string[] }>;
  workloads?: string[];
  meshes?: Record<
    string,
    { state: string; errors?: string[]; trust?: { state: string; phase?: string; rootFingerprint?: string; notAfter?: string; errors?: string[] } }
  >;
  clusters?: Record<string, { generation: number; applied: boolean; errors?: string[] }>;
}

/** A VirtualMesh, TrafficPolicy or AccessPolicy as the API lists it. */
export interface ResourceView {
  kind: string;
  metadata: {
    name: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    createdAt?: string;
    updatedAt?: string;
    /** Set when a cluster authored it (docs/gitops.md#names-and-sources). */
    source?: ResourceSourceView;
  };
  spec: Record<string, unknown>;
  status?: ResourceStatusView;
}

export interface DestinationView {
  kind?: string;
  metadata: { name: string; cluster: string };
  spec: {
    name: string;
    namespace: string;
    cluster: string;
    mesh?: string;
    labels?: Record<string, string>;
    ports: { port: number; protocol: string; name?: string }[];
    endpoints: unknown[];
    workloads: string[];
    subsets: Record<string, string[]>;
    /** How its backing workloads join the mesh and the waypoint that serves it (docs/ambient.md#what-discovery-sees). */
    dataPlane?: string;
    waypoint?: { name: string; namespace: string };
  };
}

/** A generated object of a cluster's snapshot, as `GET /v1/clusters/{name}/snapshot` lists it. */
export interface SnapshotObjectView {
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  spec?: { hosts?: string[]; endpoints?: { address: string; ports?: Record<string, number> }[] };
}

export interface PlacedObject {
  cluster: string;
  object: SnapshotObjectView;
}

export interface GeneratedRef {
  cluster: string;
  kind: string;
  namespace?: string;
  name: string;
}

export const generatedRef = ({ cluster, object: o }: PlacedObject): GeneratedRef => ({
  cluster,
  kind: o.kind,
  ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
  name: o.metadata.name,
});

/** The resources that produced an object (its `meshplane.dev/parents` annotation). */
export function parentsOf(object: SnapshotObjectView): { kind: string; name: string }[] {
  try {
    const parents: unknown = JSON.parse(object.metadata.annotations?.["meshplane.dev/parents"] ?? "[]");
    if (!Array.isArray(parents)) return [];
    return parents.filter(
      (p): p is { kind: string; name: string } => typeof p === "object" && p !== null && typeof p.kind === "string" && typeof p.name === "string",
    );
  } catch {
    return [];
  }
}

/** The objects whose parents include `parent`. */
export function generatedBy(objects: readonly PlacedObject[], parent: { kind: string; name: string }): GeneratedRef[] {
  return objects.filter(({ object }) => parentsOf(object).some((p) => p.kind === parent.kind && p.name === parent.name)).map(generatedRef);
}

export interface AppliedPolicy {
  kind: string;
  name: string;
  state: string;
  acceptanceOrder?: number;
  errors: string[];
  /** The TrafficPolicy fields it sets (an AccessPolicy's are its limits). */
  fields: string[];
}

export interface AccessGrant {
  name: string;
  state: string;
  errors: string[];
  /** The sources it lets in, as written (`undefined`: any source). */
  sources: unknown;
  /** allowedPaths, allowedMethods, allowedPorts as written. */
  limits: Record<string, unknown>;
}

export interface FederationRoute {
  /** The cluster that calls it under `host`. */
  cluster: string;
  host: string;
  /** Addresses and ports of the east-west gateway the calls go through. */
  gateways: string[];
}

export interface DestinationDescription {
  /** TrafficPolicies in acceptance order. */
  policies: AppliedPolicy[];
  /** The VirtualMesh its mesh belongs to, when it makes the mesh deny by default (globalAccessPolicy ENABLED); empty: anyone may call. */
  enforcedBy: string[];
  access: AccessGrant[];
  /** The VirtualMesh its mesh belongs to (none or one). */
  virtualMeshes: { name: string; state: string }[];
  federation: FederationRoute[];
  /** Objects generated for the service itself (a policy's objects carry the policy as their parent). */
  generated: GeneratedRef[];
}

const ACCESS_LIMITS = ["allowedPaths", "allowedMethods", "allowedPorts"] as const;

export function describeDestination(
  destination: DestinationView,
  resources: readonly ResourceView[],
  objects: readonly PlacedObject[],
): DestinationDescription {
  const name = destination.metadata.name;
  const applying = resources
    .filter((r) => r.status?.destinations?.[name] !== undefined)
    .sort(
      (a, b) =>
        (a.status?.destinations?.[name]?.acceptanceOrder ?? 1e9) - (b.status?.destinations?.[name]?.acceptanceOrder ?? 1e9) ||
        a.kind.localeCompare(b.kind) ||
        a.metadata.name.localeCompare(b.metadata.name),
    );
  const entry = (r: ResourceView) => r.status?.destinations?.[name] as { state: string; acceptanceOrder?: number; errors?: string[] };
  const policies = applying
    .filter((r) => r.kind !== "AccessPolicy")
    .map((r) => ({
      kind: r.kind,
      name: r.metadata.name,
      state: entry(r).state,
      ...(entry(r).acceptanceOrder !== undefined ? { acceptanceOrder: entry(r).acceptanceOrder } : {}),
      errors: entry(r).errors ?? [],
      fields: Object.keys((r.spec.policy as object | undefined) ?? {}),
    }));
  const access = applying
    .filter((r) => r.kind === "AccessPolicy")
    .map((r) => ({
      name: r.metadata.name,
      state: entry(r).state,
      errors: entry(r).errors ?? [],
      sources: r.spec.sourceSelector,
      limits: Object.fromEntries(ACCESS_LIMITS.flatMap((k) => (r.spec[k] === undefined ? [] : [[k, r.spec[k]]]))),
    }));
  // The one VirtualMesh its mesh belongs to (a mesh joins at most one; the translator's claim order).
  const holder =
    destination.spec.mesh === undefined
      ? undefined
      : claimantOf(
          destination.spec.mesh,
          resources.filter((r) => r.kind === "VirtualMesh"),
        );
  const virtualMeshes = holder ? [holder] : [];
  // A federated service is a ServiceEntry for its VirtualMesh host in each other cluster that may call it.
  const hosts = new Set(virtualMeshes.map((v) => federatedHost(destination.spec, v as unknown as { spec: VirtualMeshSpec })));
  const federation = objects
    .filter((o) => o.cluster !== destination.spec.cluster && o.object.kind === "ServiceEntry" && (o.object.spec?.hosts ?? []).some((h) => hosts.has(h)))
    .map(({ cluster, object }) => ({
      cluster,
      host: (object.spec?.hosts ?? []).find((h) => hosts.has(h)) as string,
      gateways: [...new Set((object.spec?.endpoints ?? []).flatMap((e) => Object.values(e.ports ?? {}).map((port) => `${e.address}:${port}`)))],
    }))
    .sort((a, b) => a.cluster.localeCompare(b.cluster));
  return {
    policies,
    enforcedBy: virtualMeshes.filter((v) => v.spec.globalAccessPolicy === "ENABLED").map((v) => v.metadata.name),
    access,
    virtualMeshes: virtualMeshes.map((v) => ({ name: v.metadata.name, state: v.status?.state ?? "PENDING" })),
    federation,
    generated: generatedBy(objects, { kind: "Destination", name }),
  };
}

/** What `reasonsOf` reads of a status. */
export interface StatusReasons {
  errors?: string[];
  destinations?: Record<string, { errors?: string[] }>;
  meshes?: Record<string, { errors?: string[]; trust?: { errors?: string[] } }>;
  clusters?: Record<string, { errors?: string[] }>;
}

/** Every reason a status gives, each prefixed with the destination, mesh or cluster it is about. */
export function reasonsOf(status: StatusReasons | undefined): string[] {
  if (!status) return [];
  const out = [...(status.errors ?? [])];
  for (const [what, map] of [
    ["destination", status.destinations],
    ["mesh", status.meshes],
    ["cluster", status.clusters],
  ] as const) {
    for (const [name, entry] of Object.entries(map ?? {})) {
      for (const e of entry.errors ?? []) out.push(`${what} ${name}: ${e}`);
      for (const e of (entry as { trust?: { errors?: string[] } }).trust?.errors ?? []) out.push(`${what} ${name} trust: ${e}`);
    }
  }
  return out;
}
