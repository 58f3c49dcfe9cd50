/**
 * Segments: what one ingest batch wrote for one shard and one hour of minutes. A header (the tenants
 * in it, each with its block's offset and length) and a gzipped block per tenant, so the reader of one
 * tenant fetches the header and its own block by Range GET, and the compactor reads a segment whole
 * (docs/aws.md#metrics).
 *
 * Layout: `MPS1`, the header's length (uint32, big-endian), the header (JSON), the blocks.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import type { ObjectBucket } from "./bucket";
import { type DatedBucket, type PackedCluster, type StartWindow, pack, unpack } from "./packed";

const MAGIC = "MPS1";
/** Bytes read first from a segment: its header, and with few tenants their blocks too. */
export const SEGMENT_PEEK_BYTES = 64 * 1024;

interface SegmentHeader {
  v: 1;
  /** [tenant, offset after the header, length], sorted by tenant. */
  tenants: [string, number, number][];
}

/** A segment of the tenants' buckets (by tenant id). */
export function encodeSegment(byTenant: ReadonlyMap<string, readonly DatedBucket[]>): Uint8Array {
  const blocks: Buffer[] = [];
  const header: SegmentHeader = { v: 1, tenants: [] };
  let offset = 0;
  for (const tenant of [...byTenant.keys()].sort()) {
    const block = gzipSync(JSON.stringify(pack(byTenant.get(tenant) ?? [])));
    header.tenants.push([tenant, offset, block.length]);
    blocks.push(block);
    offset += block.length;
  }
  const head = Buffer.from(JSON.stringify(header));
  const prefix = Buffer.alloc(8);
  prefix.write(MAGIC, 0, "latin1");
  prefix.writeUInt32BE(head.length, 4);
  return Buffer.concat([prefix, head, ...blocks]);
}

function headerOf(bytes: Buffer): { header: SegmentHeader; bodyAt: number } | "short" {
  if (bytes.length < 8 || bytes.toString("latin1", 0, 4) !== MAGIC) throw new Error("not a metrics segment");
  const length = bytes.readUInt32BE(4);
  if (bytes.length < 8 + length) return "short";
  return { header: JSON.parse(bytes.toString("utf8", 8, 8 + length)) as SegmentHeader, bodyAt: 8 + length };
}

const decodeBlock = (block: Uint8Array, window?: StartWindow): DatedBucket[] =>
  unpack(JSON.parse(gunzipSync(block).toString("utf8")) as PackedCluster[], window);

/** Every tenant's buckets in a whole segment, each tenant's block still compressed until asked for. */
export function segmentBlocks(bytes: Uint8Array): { tenant: string; buckets: () => DatedBucket[] }[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parsed = headerOf(buffer);
  if (parsed === "short") throw new Error("a metrics segment shorter than its header");
  return parsed.header.tenants.map(([tenant, offset, length]) => {
    const at = parsed.bodyAt + offset;
    return { tenant, buckets: () => decodeBlock(buffer.subarray(at, at + length)) };
  });
}

/**
 * One tenant's buckets in the segment `key` (those starting in `window` when given): the header and,
 * unless it came with it, the tenant's block, each by Range GET. Empty when the tenant has none there
 * (or the segment is gone).
 */
export async function tenantBlock(bucket: ObjectBucket, key: string, tenantId: string, window?: StartWindow): Promise<DatedBucket[]> {
  const peek = await bucket.range(key, 0, SEGMENT_PEEK_BYTES - 1);
  if (peek === undefined) return [];
  let bytes = Buffer.from(peek.buffer, peek.byteOffset, peek.byteLength);
  let parsed = headerOf(bytes);
  if (parsed === "short") {
    const whole = await bucket.range(key, 0, 8 + bytes.readUInt32BE(4) - 1);
    if (whole === undefined) return [];
    bytes = Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength);
    parsed = headerOf(bytes) as Exclude<ReturnType<typeof headerOf>, "short">;
  }
  const entry = parsed.header.tenants.find(([t]) => t === tenantId);
  if (entry === undefined) return [];
  const start = parsed.bodyAt + entry[1];
  const end = start + entry[2];
  if (end <= bytes.length) return decodeBlock(bytes.subarray(start, end), window);
  const block = await bucket.range(key, start, end - 1);
  return block === undefined ? [] : decodeBlock(block, window);
}
