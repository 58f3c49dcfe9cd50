/**
 * The stored form of buckets: one cluster's buckets with one edge dictionary, each row an array of
 * numbers (the edge's index, the nine counters in COUNTER_FIELDS order, then the latency histogram if
 * any request was timed). Compact as JSON and smaller still gzipped; the same form in segments, hour
 * objects and day objects (docs/aws.md#metrics). A bucket's rows are stored as their own JSON text,
 * so a reader of a few minutes of an hour parses and builds the rows of those minutes only (objects
 * written before, with the rows as arrays, read the same).
 */
import { COUNTER_FIELDS, type MetricsEdge, type Signals, addSignals, edgeKey, emptySignals } from "@meshplane/core/base";
import type { StoredBucket } from "../stored";

/** One cluster's buckets as stored. `generatedAt`: the agent's clock of the report they came from (epoch ms). */
export interface PackedCluster {
  cluster: string;
  istioClusterId: string;
  seconds: 60 | 3600;
  edges: MetricsEdge[];
  buckets: { start: number; generatedAt: number; rows: PackedRows; other?: number[] }[];
}

/** A bucket's rows: the JSON text of their arrays as written now, the arrays themselves as written before. */
export type PackedRows = string | number[][];

/** Buckets that start in [from, to) (epoch seconds): what a reader unpacks of an object. */
export interface StartWindow {
  from: number;
  to: number;
}

/** A bucket with the report time it came from, for choosing the latest of two reports of one minute. */
export type DatedBucket = StoredBucket & { generatedAt: number };

/** Signals as numbers: the counters, then the latency buckets when there are any. */
export function packSignals(s: Readonly<Signals>): number[] {
  const out: number[] = COUNTER_FIELDS.map((f) => s[f]);
  return s.latency.length > 0 ? out.concat(s.latency) : out;
}

/**
 * `packSignals` undone, reading from `offset`. One object literal, the fields in COUNTER_FIELDS order
 * (a reader builds one per stored row; packed.test.ts holds the order to COUNTER_FIELDS).
 */
export function unpackSignals(packed: readonly number[], offset = 0): Signals {
  const at = offset + COUNTER_FIELDS.length;
  return {
    requests: packed[offset] ?? 0,
    non2xx: packed[offset + 1] ?? 0,
    errors5xx: packed[offset + 2] ?? 0,
    grpcErrors: packed[offset + 3] ?? 0,
    failures: packed[offset + 4] ?? 0,
    bytesIn: packed[offset + 5] ?? 0,
    bytesOut: packed[offset + 6] ?? 0,
    tcpOpened: packed[offset + 7] ?? 0,
    tcpClosed: packed[offset + 8] ?? 0,
    latency: packed.length > at ? packed.slice(at) : [],
  };
}

/**
 * Buckets grouped per cluster, edges sorted by key and buckets by start, so equal buckets always
 * pack to equal bytes (a rerun of a compaction writes the same objects).
 */
export function pack(buckets: readonly DatedBucket[]): PackedCluster[] {
  const byCluster = new Map<string, DatedBucket[]>();
  for (const b of buckets) byCluster.set(b.cluster, [...(byCluster.get(b.cluster) ?? []), b]);
  return [...byCluster.keys()].sort().map((cluster) => {
    const own = (byCluster.get(cluster) as DatedBucket[]).slice().sort((a, b) => a.start - b.start || a.seconds - b.seconds);
    const edges = new Map<string, MetricsEdge>();
    for (const b of own) for (const r of b.rows) edges.set(edgeKey(r.edge), r.edge);
    const keysSorted = [...edges.keys()].sort();
    const index = new Map(keysSorted.map((k, i) => [k, i]));
    const first = own[0] as DatedBucket;
    return {
      cluster,
      istioClusterId: own[own.length - 1]?.istioClusterId ?? first.istioClusterId,
      seconds: first.seconds,
      edges: keysSorted.map((k) => edges.get(k) as MetricsEdge),
      buckets: own.map((b) => ({
        start: b.start,
        generatedAt: b.generatedAt,
        rows: JSON.stringify(
          b.rows.map((r) => [index.get(edgeKey(r.edge)) as number, ...packSignals(r.signals)]).sort((x, y) => (x[0] as number) - (y[0] as number)),
        ),
        ...(b.other ? { other: [b.other.edges, ...packSignals(b.other.signals)] } : {}),
      })),
    };
  });
}

/**
 * `pack` undone: every bucket, or only those starting in `window` — the others' rows are neither
 * parsed nor built.
 */
export function unpack(packed: readonly PackedCluster[], window?: StartWindow): DatedBucket[] {
  return packed.flatMap((p) =>
    p.buckets.flatMap((b) => {
      if (window !== undefined && !(b.start >= window.from && b.start < window.to)) return [];
      const rows = typeof b.rows === "string" ? (JSON.parse(b.rows) as number[][]) : b.rows;
      const bucket: DatedBucket = {
        start: b.start,
        seconds: p.seconds,
        cluster: p.cluster,
        istioClusterId: p.istioClusterId,
        generatedAt: b.generatedAt,
        rows: rows.map((r) => ({ edge: p.edges[r[0] as number] as MetricsEdge, signals: unpackSignals(r, 1) })),
      };
      if (b.other) bucket.other = { edges: b.other[0] ?? 0, signals: unpackSignals(b.other, 1) };
      return [bucket];
    }),
  );
}

/** Of two buckets of one cluster and start, the one from the later report (docs/observability.md#where-it-is-kept). */
export function latestPerBucket(buckets: Iterable<DatedBucket>): DatedBucket[] {
  const kept = new Map<string, DatedBucket>();
  for (const b of buckets) {
    const key = `${b.cluster}|${b.start}|${b.seconds}`;
    const seen = kept.get(key);
    if (seen === undefined || b.generatedAt > seen.generatedAt) kept.set(key, b);
  }
  return [...kept.values()];
}

/**
 * Minute buckets summed into hour buckets per cluster and edge (a day object's resolution). The
 * hour's `generatedAt` is its latest minute's.
 */
export function toHours(minutes: readonly DatedBucket[]): DatedBucket[] {
  const hours = new Map<string, { bucket: DatedBucket; rows: Map<string, { edge: MetricsEdge; signals: Signals }> }>();
  for (const m of minutes) {
    const start = m.start - (m.start % 3600);
    const key = `${m.cluster}|${start}`;
    let hour = hours.get(key);
    if (hour === undefined) {
      hour = { bucket: { start, seconds: 3600, cluster: m.cluster, istioClusterId: m.istioClusterId, generatedAt: 0, rows: [] }, rows: new Map() };
      hours.set(key, hour);
    }
    hour.bucket.generatedAt = Math.max(hour.bucket.generatedAt, m.generatedAt);
    hour.bucket.istioClusterId = m.istioClusterId;
    for (const r of m.rows) {
      const k = edgeKey(r.edge);
      const row = hour.rows.get(k) ?? { edge: r.edge, signals: emptySignals() };
      addSignals(row.signals, r.signals);
      hour.rows.set(k, row);
    }
    if (m.other) {
      const other = hour.bucket.other ?? { edges: 0, signals: emptySignals() };
      other.edges = Math.max(other.edges, m.other.edges);
      addSignals(other.signals, m.other.signals);
      hour.bucket.other = other;
    }
  }
  return [...hours.values()].map(({ bucket, rows }) => ({ ...bucket, rows: [...rows.values()] }));
}
