import { gzipSync } from "node:zlib";
import { COUNTER_FIELDS, type MetricsEdge, type Signals, emptySignals } from "@meshplane/core/base";
import { describe, expect, it } from "vitest";
import type { ObjectBucket } from "./bucket";
import { hourObjectKey, segmentKey } from "./keys";
import { type DatedBucket, type PackedCluster, pack, packSignals, unpack, unpackSignals } from "./packed";
import { S3MetricsReader } from "./reader";
import { decodeRollup, encodeRollup } from "./rollups";
import { encodeSegment } from "./segments";

const HOUR = 1_700_000_000 - (1_700_000_000 % 3600);
const edge = (caller: string): MetricsEdge => ({
  source: { cluster: "id-east", namespace: "shop", workload: caller },
  destination: { cluster: "id-east", namespace: "shop", service: "cart" },
  protocol: "http",
  view: "server",
});
const signals = (n: number, timed: boolean): Signals => ({
  ...emptySignals(),
  requests: 10 + n,
  failures: n % 3,
  errors5xx: n % 3,
  ...(timed ? { latency: Array.from({ length: 20 }, (_, b) => (b === n % 20 ? 10 + n : 0)) } : {}),
});
/** Cluster `cluster`'s minute `m` of the hour: two edges, one timed, and `other` traffic. */
const minute = (cluster: string, m: number, generatedAt = 1): DatedBucket => ({
  start: HOUR + m * 60,
  seconds: 60,
  cluster,
  istioClusterId: `id-${cluster}`,
  generatedAt,
  rows: [
    { edge: edge(`a-${m}`), signals: signals(m, true) },
    { edge: edge(`b-${m}`), signals: signals(m + 1, false) },
  ],
  other: { edges: 3, signals: signals(m + 2, false) },
});
const hourOf = (cluster: string) => Array.from({ length: 60 }, (_, m) => minute(cluster, m));
/** A bucket as the reader answers it: without the report's time. */
const strip = ({ generatedAt: _g, ...b }: DatedBucket) => b;
const byStart = (a: DatedBucket, b: DatedBucket) => a.start - b.start || (a.cluster < b.cluster ? -1 : 1);

describe("the packed form", () => {
  it("keeps each counter in its field (COUNTER_FIELDS order), with and without latency", () => {
    const s = emptySignals();
    COUNTER_FIELDS.forEach((f, i) => {
      s[f] = i + 1;
    });
    expect(unpackSignals(packSignals(s))).toEqual(s);
    s.latency = Array.from({ length: 20 }, (_, b) => b * 2);
    expect(unpackSignals([7, ...packSignals(s)], 1)).toEqual(s);
  });

  it("stores each bucket's rows as their own JSON text, and reads the arrays written before the same", () => {
    const buckets = [...hourOf("east"), ...hourOf("west")];
    const packed = pack(buckets);
    expect(typeof packed[0]?.buckets[0]?.rows).toBe("string");
    const before: PackedCluster[] = packed.map((p) => ({ ...p, buckets: p.buckets.map((b) => ({ ...b, rows: JSON.parse(b.rows as string) })) }));
    expect(unpack(packed)).toEqual(unpack(before));
    expect(unpack(packed).sort(byStart)).toEqual(buckets.sort(byStart));
  });

  it("unpacks only the buckets starting in a window, the same as the whole cut to it", () => {
    const packed = pack([...hourOf("east"), ...hourOf("west")]);
    const window = { from: HOUR + 50 * 60, to: HOUR + 55 * 60 };
    const cut = unpack(packed, window);
    expect(cut).toHaveLength(10);
    expect(cut).toEqual(unpack(packed).filter((b) => b.start >= window.from && b.start < window.to));
    expect(decodeRollup(encodeRollup("t1", HOUR, hourOf("east")), window)).toEqual(unpack(pack(hourOf("east")), window));
  });
});

/** A bucket in memory. */
function memoryBucket(objects: Map<string, Uint8Array>): ObjectBucket {
  return {
    put: async (key, body) => void objects.set(key, body),
    get: async (key) => objects.get(key),
    range: async (key, start, end) => objects.get(key)?.subarray(start, end + 1),
    list: async (prefix) => [...objects.keys()].filter((k) => k.startsWith(prefix)).sort(),
    prefixes: async () => [],
  };
}

describe("the reader of a window", () => {
  it("gives the minutes in the window from an hour object (either form) and from the next hour's segments, the later report of a minute", async () => {
    const objects = new Map<string, Uint8Array>();
    // The hour compacted before rows were their own text; the next hour still in segments, one minute reported twice.
    const old = pack(hourOf("east")).map((p) => ({ ...p, buckets: p.buckets.map((b) => ({ ...b, rows: JSON.parse(b.rows as string) })) }));
    objects.set(hourObjectKey("t1", HOUR), gzipSync(JSON.stringify({ v: 1, tenant: "t1", start: HOUR, clusters: old })));
    const next = (m: number, generatedAt = 1) => ({ ...minute("east", m, generatedAt), start: HOUR + 3600 + m * 60 });
    objects.set(segmentKey(0, HOUR + 3600, 1, "a"), encodeSegment(new Map([["t1", [next(0), next(1), next(2)]]])));
    objects.set(segmentKey(0, HOUR + 3600, 2, "b"), encodeSegment(new Map([["t1", [next(1, 2)]]])));
    const reader = new S3MetricsReader({ bucket: memoryBucket(objects), shards: 1, now: () => new Date((HOUR + 3600 + 300) * 1000) });
    const got = await reader.buckets("t1", HOUR + 57 * 60, HOUR + 3600 + 2 * 60);
    expect(got).toEqual([minute("east", 57), minute("east", 58), minute("east", 59), next(0), next(1, 2)].map(strip));
  });
});
