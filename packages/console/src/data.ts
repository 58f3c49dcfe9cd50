/** What pages read from the API, typed with core's view types. */
import {
  type ClusterHealth,
  type ClusterView,
  type DestinationView,
  type MeshDataPlaneView,
  type PlacedObject,
  type ResourceView,
  type SnapshotObjectView,
  type SnapshotView,
  readEach,
} from "@meshplane/core/views";
import { listAll, request } from "./api";
import { COLLECTIONS, type Collection } from "./router";

/** A discovered mesh: its data plane (ztunnel, waypoints) as core's view reads it, its trust domain and gateways. */
export type MeshView = MeshDataPlaneView & {
  spec: {
    istio?: {
      trustDomain: string;
      trustDomainAliases?: string[];
      gateways?: { kind: string; name: string; namespace: string; externalPort?: number; addresses?: { ip?: string; hostname?: string }[] }[];
    };
  };
};

export type Snapshot = Omit<SnapshotView, "objects"> & { cluster: string; objects: SnapshotObjectView[]; discoveryReported?: boolean };

export async function resources(signal?: AbortSignal): Promise<ResourceView[]> {
  const lists = await Promise.all((Object.keys(COLLECTIONS) as Collection[]).map((c) => listAll<ResourceView>(`/v1/${c}`, signal ? { signal } : {})));
  return lists.flat();
}

export async function resource(collection: Collection, name: string, signal?: AbortSignal): Promise<{ resource: ResourceView; etag: string | null }> {
  const { body, etag } = await request<ResourceView>("GET", `/v1/${collection}/${encodeURIComponent(name)}`, signal ? { signal } : {});
  return { resource: body, etag };
}

export const clusters = (signal?: AbortSignal) => listAll<ClusterView>("/v1/clusters", signal ? { signal } : {});

/** A cluster's snapshot; `objects: false` reads only its sync state (no snapshot body is read). */
export async function snapshot(cluster: string, signal?: AbortSignal, options: { objects?: boolean } = {}): Promise<Snapshot> {
  const query = options.objects === false ? "?objects=false" : "";
  return (await request<Snapshot>("GET", `/v1/clusters/${encodeURIComponent(cluster)}/snapshot${query}`, signal ? { signal } : {})).body;
}

export type Health = Omit<ClusterHealth, "snapshot"> & { snapshot: Snapshot };

/** Every cluster with its snapshot (or, with `objects: false`, its sync state only), four requests at a time. */
export async function health(signal?: AbortSignal, options: { objects?: boolean } = {}): Promise<Health[]> {
  return readEach(await clusters(signal), (cluster) => snapshot(cluster.name, signal, options));
}

export function placedObjects(all: readonly { cluster: { name: string }; snapshot: Snapshot }[]): PlacedObject[] {
  return all.flatMap((h) => h.snapshot.objects.map((object) => ({ cluster: h.cluster.name, object })));
}

export const meshes = (signal?: AbortSignal) => listAll<MeshView>("/v1/meshes", signal ? { signal } : {});

export type { DestinationView, ResourceView };
