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
import type { DestinationMetrics, GraphView, ImpactList } from "@meshplane/core/views";
import type { SourcedResource } from "./authored";
import { ApiError, listAll, request } from "./api";
import { COLLECTIONS, type Collection } from "./router";
import { session } from "./session";

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

export async function resources(signal?: AbortSignal): Promise<SourcedResource[]> {
  const lists = await Promise.all((Object.keys(COLLECTIONS) as Collection[]).map((c) => listAll<SourcedResource>(`/v1/${c}`, signal ? { signal } : {})));
  return lists.flat();
}

export async function resource(collection: Collection, name: string, signal?: AbortSignal): Promise<{ resource: SourcedResource; etag: string | null }> {
  const { body, etag } = await request<SourcedResource>("GET", `/v1/${collection}/${encodeURIComponent(name)}`, signal ? { signal } : {});
  return { resource: body, etag };
}

/** Deletes a resource, conditional on the version that was read (If-Match): a change made meanwhile is a 412. */
export async function deleteResource(collection: Collection, name: string, etag: string | null): Promise<void> {
  await request("DELETE", `/v1/${collection}/${encodeURIComponent(name)}`, { headers: etag ? { "if-match": etag } : {} });
}

let adminProbe: { token: string | null; answer: Promise<boolean> } | undefined;

/**
 * Whether the signed-in tenant token is an admin's. The API names no role, so this asks once per
 * credential for a read only an admin may make (the first token of the list, never a secret): 403
 * means it is not. Asked only where an admin's act is offered (deleting an authored resource).
 */
export function isAdmin(): Promise<boolean> {
  const token = session.token();
  if (adminProbe?.token !== token) {
    const answer = request("GET", "/v1/tokens?limit=1").then(
      () => true,
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 403) return false;
        adminProbe = undefined; // not an answer about the role: ask again next time
        throw e;
      },
    );
    adminProbe = { token, answer };
  }
  return adminProbe.answer;
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

/** Windows the graph offers (`GET /v1/graph?window=`). */
export const GRAPH_WINDOWS = ["5m", "15m", "1h", "6h", "24h"] as const;
/** Windows a destination's charts offer (`GET /v1/destinations/{name}/metrics?window=`). */
export const SERIES_WINDOWS = ["1h", "6h", "24h", "48h", "7d", "30d"] as const;

/** The graph over `window`, every page of its edges merged into one view (nodes once each). */
export async function graph(window: string, signal?: AbortSignal): Promise<GraphView> {
  let next: string | undefined;
  let all: GraphView | undefined;
  const seen = new Set<string>();
  do {
    const query = new URLSearchParams({ window, limit: "1000", ...(next ? { continue: next } : {}) });
    const { body } = await request<GraphView>("GET", `/v1/graph?${query}`, signal ? { signal } : {});
    all ??= { ...body, nodes: [], edges: [] };
    for (const n of body.nodes) if (!seen.has(n.id) && seen.add(n.id)) all.nodes.push(n);
    all.edges.push(...body.edges);
    next = body.metadata.continue;
  } while (next); // an aborted signal ends it: the request throws
  return { ...(all as GraphView), metadata: {} };
}

/** One destination's series over `window`, with the changes that reached it and their impact. */
export async function destinationMetrics(name: string, window: string, signal?: AbortSignal): Promise<DestinationMetrics> {
  const path = `/v1/destinations/${encodeURIComponent(name)}/metrics?${new URLSearchParams({ window })}`;
  return (await request<DestinationMetrics>("GET", path, signal ? { signal } : {})).body;
}

/** How far back the overview looks for changes that hurt a destination. */
export const IMPACTS_WINDOW = "6h";

/** The tenant's destinations hurt by a change made in the last IMPACTS_WINDOW. */
export async function impacts(signal?: AbortSignal): Promise<ImpactList> {
  return (await request<ImpactList>("GET", `/v1/metrics/impacts?window=${IMPACTS_WINDOW}`, signal ? { signal } : {})).body;
}

export type { DestinationView, ResourceView, SourcedResource };
