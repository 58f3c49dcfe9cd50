import type { DiscoveryResult, Destination, Mesh, Workload } from "@meshplane/core/base";
import { batchWrite, queryItems } from "./batch";
import { clusterPk, keys } from "./keys";
import { type Decoded, MAX_PAGE_BYTES, type Page, PageBudget, type PageRequest, readRange } from "./page";
import type { StoreDeps } from "./resources";

export type DiscoveredKind = "Mesh" | "Workload" | "Destination";
type Discovered = Mesh | Workload | Destination;
type Key = { PK: string; SK: string };

export interface DiscoveredFilter {
  cluster?: string;
  namespace?: string;
  mesh?: string;
}

/** Where a page of discovered objects ends: in `cluster`, after `name` (absent = before its first object). */
export interface DiscoveredPosition {
  cluster: string;
  name?: string;
}

/**
 * Queries one page of discovered objects may make: one per cluster it reaches, at least, so a list
 * over many clusters holding little needs a bigger allowance than a list of one partition.
 */
const MAX_DISCOVERED_QUERIES_PER_PAGE = 50;

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
    await batchWrite(
      this.deps.doc,
      this.deps.table,
      written.map((Key) => ({ DeleteRequest: { Key } })),
    );
  }

  /**
   * One page of the discovered objects of a kind across `clusters`, ordered by cluster, then name (as
   * kubectl orders a list across namespaces), from `request.after`. Each cluster is its own partition,
   * read in turn; a position in a cluster that has since gone resumes at the next one. The namespace
   * and mesh filters are applied here, within the page's read allowance (the objects are stored as
   * JSON text), so a page may be short.
   */
  async page(
    tenantId: string,
    clusters: readonly string[],
    kind: DiscoveredKind,
    filter: DiscoveredFilter,
    request: PageRequest<DiscoveredPosition>,
  ): Promise<Page<Discovered, DiscoveredPosition>> {
    const after = request.after;
    const wanted = clusters
      .filter((c) => (filter.cluster === undefined || c === filter.cluster) && (after === undefined || c >= after.cluster))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const budget = new PageBudget(request.limit, MAX_PAGE_BYTES, MAX_DISCOVERED_QUERIES_PER_PAGE);
    const items: Discovered[] = [];
    for (const cluster of wanted) {
      const from = cluster === after?.cluster ? after.name : undefined;
      const range = {
        pk: clusterPk(tenantId, cluster),
        prefix: keys.discoveredPrefix(kind),
        decode: (item: Record<string, unknown>) => decodeDiscovered(item, filter),
      };
      const out = await readRange(this.deps.doc, this.deps.table, from === undefined ? range : { ...range, after: from }, budget);
      items.push(...out.items);
      if (!out.ended) return { items, next: out.after === undefined ? { cluster } : { cluster, name: out.after } };
    }
    return { items };
  }

  /** Discovered objects of a kind across the given clusters, filtered, sorted by name. */
  async list(tenantId: string, clusters: string[], kind: DiscoveredKind, filter: DiscoveredFilter = {}): Promise<Discovered[]> {
    const wanted = filter.cluster ? clusters.filter((c) => c === filter.cluster) : clusters;
    const pages = await Promise.all(wanted.map((c) => queryItems(this.deps.doc, this.deps.table, clusterPk(tenantId, c), keys.discoveredPrefix(kind))));
    return pages
      .flat()
      .map((item) => JSON.parse(item.body as string) as Discovered)
      .filter((obj) => matches(obj, filter))
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  }

  /**
   * Every discovered object of `clusters`, by kind: one Query per cluster over all its discovered
   * kinds (its `D#` items), the clusters in parallel. Each kind's list is ordered by name (code-unit
   * order), a name held by two clusters in `clusters`' order. For a reader wanting every kind at once
   * (the metrics API's world); `list` stays the way to read one kind.
   */
  async allKinds(tenantId: string, clusters: readonly string[]): Promise<{ meshes: Mesh[]; workloads: Workload[]; destinations: Destination[] }> {
    const pages = await Promise.all(clusters.map((c) => queryItems(this.deps.doc, this.deps.table, clusterPk(tenantId, c), DISCOVERED_PREFIX)));
    const out = { meshes: [] as Mesh[], workloads: [] as Workload[], destinations: [] as Destination[] };
    for (const item of pages.flat()) {
      const obj = JSON.parse(item.body as string) as Discovered;
      if (obj.kind === "Mesh") out.meshes.push(obj);
      else if (obj.kind === "Workload") out.workloads.push(obj);
      else if (obj.kind === "Destination") out.destinations.push(obj);
    }
    // A stable sort: equal names keep the order of `clusters`, as the pages were flattened.
    out.meshes.sort(byName);
    out.workloads.sort(byName);
    out.destinations.sort(byName);
    return out;
  }
}

/** The SK prefix of every discovered kind in a cluster's partition. */
const DISCOVERED_PREFIX = "D#";

const byName = (a: Discovered, b: Discovered): number => (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0);

function decodeDiscovered(item: Record<string, unknown>, filter: DiscoveredFilter): Decoded<Discovered> | undefined {
  const body = item.body as string;
  const obj = JSON.parse(body) as Discovered;
  return matches(obj, filter) ? { value: obj, bytes: Buffer.byteLength(body) } : undefined;
}

function matches(obj: Discovered, filter: DiscoveredFilter): boolean {
  if (filter.namespace !== undefined && obj.spec.namespace !== filter.namespace) return false;
  if (filter.mesh !== undefined) {
    const mesh = obj.kind === "Mesh" ? obj.metadata.name : obj.spec.mesh;
    if (mesh !== filter.mesh) return false;
  }
  return true;
}
