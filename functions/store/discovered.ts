import type { DiscoveryResult, Destination, Mesh, Workload } from "@meshplane/core";
import { batchWrite, queryItems } from "./batch";
import { clusterPk, keys } from "./keys";
import type { StoreDeps } from "./resources";

export type DiscoveredKind = "Mesh" | "Workload" | "Destination";
type Discovered = Mesh | Workload | Destination;
type Key = { PK: string; SK: string };

export interface DiscoveredFilter {
  cluster?: string;
  namespace?: string;
  mesh?: string;
}

/** Discovered Meshes, Workloads and Destinations, one partition per cluster. */
export class DiscoveredStore {
  constructor(private readonly deps: StoreDeps) {}

  /**
   * Makes what is stored for one cluster equal `result`: writes only objects that are new or changed
   * and deletes the ones that went away. A busy cluster changes a few endpoints at a time, so a report
   * costs one read of the partition and a handful of writes, not a rewrite of every object.
   */
  async replace(tenantId: string, cluster: string, result: DiscoveryResult): Promise<Key[]> {
    const { doc, table } = this.deps;
    const stored = new Map((await queryItems(doc, table, clusterPk(tenantId, cluster), "D#")).map((i) => [i.SK as string, i.body as string]));
    const puts = [];
    const keep = new Set<string>();
    for (const obj of [...result.meshes, ...result.workloads, ...result.destinations] as Discovered[]) {
      const key = keys.discovered(tenantId, cluster, obj.kind, obj.metadata.name);
      const body = JSON.stringify(obj);
      keep.add(key.SK);
      if (stored.get(key.SK) !== body) puts.push({ PutRequest: { Item: { ...key, body } } });
    }
    const stale = [...stored.keys()].filter((sk) => !keep.has(sk)).map((SK) => ({ DeleteRequest: { Key: { PK: clusterPk(tenantId, cluster), SK } } }));
    await batchWrite(doc, table, [...puts, ...stale]);
    return puts.map((p) => ({ PK: p.PutRequest.Item.PK, SK: p.PutRequest.Item.SK }));
  }

  /** Deletes items `replace` wrote, when the report they belong to was refused after all. */
  async remove(written: readonly Key[]): Promise<void> {
    await batchWrite(this.deps.doc, this.deps.table, written.map((Key) => ({ DeleteRequest: { Key } })));
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
