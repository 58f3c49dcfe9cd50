import type { DiscoveryResult, Destination, Mesh, Workload } from "@meshplane/core";
import { batchWrite, queryItems, queryKeys } from "./batch";
import { clusterPk, keys } from "./keys";
import type { StoreDeps } from "./resources";

export type DiscoveredKind = "Mesh" | "Workload" | "Destination";
type Discovered = Mesh | Workload | Destination;

export interface DiscoveredFilter {
  cluster?: string;
  namespace?: string;
  mesh?: string;
}

/** Discovered Meshes, Workloads and Destinations, one partition per cluster. */
export class DiscoveredStore {
  constructor(private readonly deps: StoreDeps) {}

  /** Replaces everything discovered in one cluster with `result` (stale items are deleted). */
  async replace(tenantId: string, cluster: string, result: DiscoveryResult): Promise<void> {
    const { doc, table } = this.deps;
    const all: Discovered[] = [...result.meshes, ...result.workloads, ...result.destinations];
    const puts = all.map((obj) => ({
      PutRequest: { Item: { ...keys.discovered(tenantId, cluster, obj.kind, obj.metadata.name), body: JSON.stringify(obj) } },
    }));
    const keep = new Set(puts.map((p) => p.PutRequest.Item.SK));
    const stale = (await queryKeys(doc, table, clusterPk(tenantId, cluster), "D#")).filter((k) => !keep.has(k.SK));
    await batchWrite(doc, table, [...puts, ...stale.map((Key) => ({ DeleteRequest: { Key } }))]);
  }

  /** Discovered objects of a kind across the given clusters, filtered, sorted by name. */
  async list(tenantId: string, clusters: string[], kind: DiscoveredKind, filter: DiscoveredFilter = {}): Promise<Discovered[]> {
    const wanted = filter.cluster ? clusters.filter((c) => c === filter.cluster) : clusters;
    const pages = await Promise.all(
      wanted.map((c) => queryItems(this.deps.doc, this.deps.table, clusterPk(tenantId, c), keys.discoveredPrefix(kind))),
    );
    return pages
      .flat()
      .map((item) => JSON.parse(item.body as string) as Discovered)
      .filter((obj) => matches(obj, filter))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }
}

function matches(obj: Discovered, filter: DiscoveredFilter): boolean {
  if (filter.namespace !== undefined && obj.spec.namespace !== filter.namespace) return false;
  if (filter.mesh !== undefined) {
    const mesh = obj.kind === "Mesh" ? obj.metadata.name : obj.spec.mesh;
    if (mesh !== filter.mesh) return false;
  }
  return true;
}
