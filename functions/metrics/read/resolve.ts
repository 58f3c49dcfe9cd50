/**
 * From what the store keeps (each cluster's rows, in Istio cluster IDs, from its agent's side of the
 * call) to one set of edges between meshplane's clusters (docs/observability.md#clusters): IDs mapped
 * to clusters, and each call counted once.
 */
import type { MetricsEdge, Signals } from "@meshplane/core/base";
import type { StoredBucket } from "../stored";

/** Where a side of an edge is: a cluster of the tenant, or an Istio cluster ID that maps to none. */
export interface Place {
  cluster?: string;
  istioCluster?: string;
}

/** One edge's counts in one bucket, its sides placed. */
export interface ResolvedRow {
  start: number;
  seconds: 60 | 3600;
  /** The cluster whose agent reported it. */
  reporter: string;
  source: Place & { namespace: string; workload: string };
  destination: Place & { namespace: string; service: string };
  protocol: MetricsEdge["protocol"];
  crossCluster: boolean;
  signals: Signals;
  /**
   * The same object for every row of one stored edge as one cluster reported it (over the minutes of
   * the window), whose sides are then the same objects too: a caller summing rows per edge may key on it.
   */
  link: object;
}

/** The placed sides of one stored edge as one cluster reported it, shared by its rows. */
type Sides = Pick<ResolvedRow, "source" | "destination" | "crossCluster"> & { to: Place };

/** Traffic a cluster's agent did not name (beyond its report's edges), per bucket. */
export interface OtherTraffic {
  start: number;
  seconds: 60 | 3600;
  cluster: string;
  edges: number;
  signals: Signals;
}

/**
 * Istio cluster ID → the tenant's cluster whose agent reports it as its own, by each cluster's
 * latest bucket. An ID two clusters claim maps to neither.
 */
export function clusterIds(buckets: readonly StoredBucket[]): Map<string, string | null> {
  const latest = new Map<string, StoredBucket>();
  for (const b of buckets) {
    const seen = latest.get(b.cluster);
    if (!seen || b.start > seen.start) latest.set(b.cluster, b);
  }
  const ids = new Map<string, string | null>();
  for (const [cluster, b] of latest) ids.set(b.istioClusterId, ids.has(b.istioClusterId) ? null : cluster);
  return ids;
}

/**
 * A side's place: its ID as the reporting cluster's own (the agent knows itself, even when another
 * cluster claims the same ID), or the tenant's mapping, or unmapped.
 */
function place(id: string, bucket: StoredBucket, ids: ReadonlyMap<string, string | null>): Place {
  if (id === bucket.istioClusterId) return { cluster: bucket.cluster };
  const cluster = ids.get(id);
  return cluster ? { cluster } : { istioCluster: id };
}

/** A place as one string: the cluster, or `istio:<id>`. */
export const placeKey = (p: Place): string => p.cluster ?? `istio:${p.istioCluster}`;

/**
 * The tenant's edges, each call counted once: a row whose destination is in the reporter's own
 * cluster or maps to no cluster (the agent chose between its own two views); a row whose destination
 * is another cluster's only when that cluster sent no bucket for that time — otherwise the
 * destination cluster's own side has it. A row's `view` is the agent's word and decides nothing
 * here: a cluster that calls its row about another cluster's destination `server` cannot put
 * traffic into that destination's series while that cluster reports.
 */
export function resolveRows(buckets: readonly StoredBucket[]): { rows: ResolvedRow[]; other: OtherTraffic[] } {
  const ids = clusterIds(buckets);
  const reported = new Set(buckets.map((b) => `${b.cluster}@${b.start}`));
  const rows: ResolvedRow[] = [];
  const other: OtherTraffic[] = [];
  // The minutes of one cluster's report share its edge objects: each edge is placed once per
  // reporting cluster and Istio cluster ID (what placing it depends on), not once per row.
  const placed = new Map<string, Map<MetricsEdge, Sides>>();
  for (const b of buckets) {
    const context = `${b.cluster}\u0000${b.istioClusterId}`;
    let sidesOf = placed.get(context);
    if (!sidesOf) placed.set(context, (sidesOf = new Map()));
    // A bucket names few cluster IDs: each placed once, and each row's sides built in one shape.
    const places = new Map<string, Place & { id: string }>();
    const placeOf = (id: string) => {
      let p = places.get(id);
      if (!p) {
        const found = place(id, b, ids);
        places.set(id, (p = { cluster: found.cluster, istioCluster: found.istioCluster, id: placeKey(found) }));
      }
      return p;
    };
    for (const { edge, signals } of b.rows) {
      let sides = sidesOf.get(edge);
      if (!sides) {
        const from = placeOf(edge.source.cluster);
        const to = placeOf(edge.destination.cluster);
        sides = {
          source: { cluster: from.cluster, istioCluster: from.istioCluster, namespace: edge.source.namespace, workload: edge.source.workload },
          destination: { cluster: to.cluster, istioCluster: to.istioCluster, namespace: edge.destination.namespace, service: edge.destination.service },
          crossCluster: from.id !== to.id,
          to,
        };
        sidesOf.set(edge, sides);
      }
      const to = sides.to;
      // Whatever view a row claims, only the destination's own cluster speaks for the server side: a
      // row about another reporting cluster's destination is that cluster's to give, never one cluster's
      // to write into another's series.
      if (to.cluster !== undefined && to.cluster !== b.cluster && reported.has(`${to.cluster}@${b.start}`)) continue;
      rows.push({
        start: b.start,
        seconds: b.seconds,
        reporter: b.cluster,
        source: sides.source,
        destination: sides.destination,
        protocol: edge.protocol,
        crossCluster: sides.crossCluster,
        signals,
        link: sides,
      });
    }
    if (b.other) other.push({ start: b.start, seconds: b.seconds, cluster: b.cluster, edges: b.other.edges, signals: b.other.signals });
  }
  return { rows, other };
}
