/**
 * What the metrics API reads (docs/observability.md#the-api): each use case loads the tenant's world
 * (clusters, discovered objects, VirtualMeshes), its buckets from the metrics store and its recorded
 * changes, and hands them to the pure assembly beside it. The tenant comes from the credential only;
 * no read names another's.
 */
import { type Destination, type DestinationMetrics, IMPACT_RULE, type ImpactList, MAX_IMPACTS, MINUTE_S, type MetricsSourceHealth } from "@meshplane/core/base";
import { NotFoundError } from "../../shared/errors";
import type { Store } from "../../store/index";
import type { MetricsReader, StoredBucket } from "../stored";
import { type GraphFilter, graphPage } from "./graph";
import { impactsIn } from "./impacts";
import { resolveRows } from "./resolve";
import { destinationSeries } from "./series";
import { MAX_GRAPH_WINDOW_S, MAX_SERIES_WINDOW_S, timeRange } from "./window";
import { type World, worldOf } from "./world";

export interface MetricsReadDeps {
  store: Store;
  /** The metrics store; absent when metrics are off, and then every answer has no traffic. */
  reader?: MetricsReader;
  now: () => Date;
  /** Each cluster's latest word on reading its Prometheus, for a series' notes; none without it. */
  health?: (tenantId: string) => Promise<ReadonlyMap<string, MetricsSourceHealth>>;
}

/** How far before a window the minutes are read: the impact rule compares a change with the minutes before it. */
const BEFORE_S = IMPACT_RULE.windowMinutes * MINUTE_S;

/** The tenant's registered clusters, what their agents discovered, and the VirtualMeshes: what every read starts with. */
export async function loadWorld(store: Store, tenantId: string): Promise<World & { destinations: Destination[] }> {
  // The VirtualMeshes beside the clusters; then each cluster's partition once, for every discovered kind.
  const [clusters, virtualMeshes] = await Promise.all([
    store.clusters.list(tenantId).then((list) => list.map((c) => c.name)),
    store.resources.list(tenantId, "VirtualMesh") as Promise<Parameters<typeof worldOf>[0]["virtualMeshes"][number][]>,
  ]);
  const { meshes, workloads, destinations } = await store.discovered.allKinds(tenantId, clusters);
  return { ...worldOf({ clusters, meshes, workloads, destinations, virtualMeshes }), destinations };
}

async function bucketsOf(deps: MetricsReadDeps, tenantId: string, from: number, to: number): Promise<StoredBucket[]> {
  return deps.reader ? deps.reader.buckets(tenantId, from, to) : [];
}

/**
 * The series of the tenant's Destination `name` over the last `window` seconds in points of `step`
 * (docs/api.md#golden-signals). NotFoundError for a name the tenant has no Destination of;
 * ValidationError naming `query.window` or `query.step` beyond the bounds.
 */
export async function readDestinationMetrics(
  deps: MetricsReadDeps,
  tenantId: string,
  name: string,
  query: { window: number; step?: number },
): Promise<DestinationMetrics> {
  const range = timeRange(deps.now(), query.window, MAX_SERIES_WINDOW_S, query.step);
  const world = await loadWorld(deps.store, tenantId);
  const destination = world.destinations.find((d) => d.metadata.name === name);
  if (!destination) throw new NotFoundError(`Destination ${name} not found`);
  const [buckets, records, health] = await Promise.all([
    bucketsOf(deps, tenantId, range.from - BEFORE_S, range.to),
    deps.store.appliedChanges.between(tenantId, new Date((range.from - BEFORE_S) * 1000), new Date(range.to * 1000)),
    deps.health ? deps.health(tenantId) : new Map<string, MetricsSourceHealth>(),
  ]);
  const reporting = new Set(buckets.filter((b) => b.start >= range.from).map((b) => b.cluster));
  return destinationSeries({ destination, world, rows: resolveRows(buckets).rows, range, records, reporting, health });
}

/**
 * One page of the tenant's graph over the last `window` seconds (docs/api.md#golden-signals), after
 * the edge key `after`; `next` when more edges follow. ValidationError naming `query.window` beyond 24 h.
 */
export async function readGraph(
  deps: MetricsReadDeps,
  tenantId: string,
  query: { window: number; filter: GraphFilter; limit: number; after?: string },
): Promise<ReturnType<typeof graphPage>> {
  const range = timeRange(deps.now(), query.window, MAX_GRAPH_WINDOW_S);
  const [world, buckets] = await Promise.all([loadWorld(deps.store, tenantId), bucketsOf(deps, tenantId, range.from, range.to)]);
  const { rows, other } = resolveRows(buckets);
  return graphPage({
    world,
    rows,
    other,
    from: range.from,
    to: range.to,
    filter: query.filter,
    limit: query.limit,
    ...(query.after === undefined ? {} : { after: query.after }),
  });
}

/** The tenant's destinations hurt by a change made in the last `window` seconds, newest change first. */
export async function readImpacts(deps: MetricsReadDeps, tenantId: string, window: number): Promise<ImpactList> {
  const range = timeRange(deps.now(), window, MAX_GRAPH_WINDOW_S);
  const [world, buckets, records] = await Promise.all([
    loadWorld(deps.store, tenantId),
    bucketsOf(deps, tenantId, range.from - BEFORE_S, range.to),
    deps.store.appliedChanges.between(tenantId, new Date((range.from - BEFORE_S) * 1000), new Date(range.to * 1000)),
  ]);
  const impacts = impactsIn(world, resolveRows(buckets).rows, records, range.from, range.to);
  return {
    from: new Date(range.from * 1000).toISOString(),
    to: new Date(range.to * 1000).toISOString(),
    impacts: impacts.slice(0, MAX_IMPACTS),
    ...(impacts.length > MAX_IMPACTS ? { truncated: true } : {}),
  };
}
