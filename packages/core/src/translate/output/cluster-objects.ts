import { createHash } from "node:crypto";
import { CONTENT_HASH_SCHEME, canonicalize, canonicalJson, digest, endsChunk } from "./canonical";
import { compareStrings } from "../compare";
import { TranslateError } from "../errors";
import { deepEqual } from "../policy/owned-fields";
import type { ObjectDraft } from "./sink";
import type { CertificateDirective, ClusterOutput, KubeObject } from "../types";

/** A draft as the sink tracks it: prepared once however many clusters it goes to, and kept while any cluster holds it. */
export interface Entry {
  draft: ObjectDraft;
  /** Orders by kind, namespace, name (`\0` sorts before any name character). */
  key: string;
  /** Position among the entries being sorted together (scratch for `rebuild`). */
  rank: number;
  /** How many (cluster, unit) places hold this entry; at 0 the sink drops it. */
  refs: number;
  /** Set on first use by `prepared`. */
  ready?: Ready;
}

/** What stamping needs: canonical spec, annotations, the canonical JSON around the labels, and the object's digest. */
export interface Ready {
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
  /** The draft's own labels, stamped beside the cluster's owner labels; absent for most objects. */
  labels?: Readonly<Record<string, string>>;
  head: Buffer;
  tail: Buffer;
  /** SHA-256 of the object's canonical JSON without its labels (Canonicalizer.contentHash). */
  digest: Buffer;
}

/**
 * A run of a cluster's objects that the content hash digests as one (Canonicalizer.contentHash): it
 * ends after an object whose digest ends a chunk, or at the cluster's last object. Never changed once
 * made, so an output keeps the chunks it was made from.
 */
interface Chunk {
  /** The entries as units placed them, in key order (an object generated twice is here twice). */
  raw: readonly Entry[];
  /** The objects: `raw` with entries of one key folded into one. */
  folded: readonly Entry[];
  ready: readonly Ready[];
  /** Each object's labels in this cluster, by index of `ready`. */
  stamps: readonly Stamp[];
  digest: Buffer;
}

/** An object's labels in one cluster: the value, its canonical JSON and that JSON's digest (the content hash's `l`). */
interface Stamp {
  value: Record<string, string>;
  bytes: Buffer;
  digest: Buffer;
}

function stampOf(labels: Record<string, string>): Stamp {
  const value = canonicalize(labels);
  const bytes = Buffer.from(JSON.stringify(value));
  return { value, bytes, digest: digest(bytes) };
}

/** Past this share of a cluster's objects changing, a cluster is re-sorted whole rather than patched. */
const PATCH_LIMIT = 0.25;

/**
 * One cluster's objects between translations, as the chunks of its content hash. A translation
 * that changes a few objects re-folds, re-prepares and re-digests only the chunks that hold them;
 * the others, and their digests, are kept. `added` and `removed` collect changes until `output`.
 */
export class ClusterObjects {
  private chunks: Chunk[] = [];
  private size = 0;
  added: Entry[] = [];
  removed: Entry[] = [];
  certificates: CertificateDirective[] = [];
  dirty = true;
  private last: ClusterOutput | undefined;
  /** The owner labels, which every object carries. */
  private readonly stamp: Stamp;
  /** The owner labels with a draft's own labels, by the draft's labels object (shared drafts share it). */
  private readonly stamps = new WeakMap<object, Stamp>();

  constructor(
    private readonly cluster: string,
    private readonly labels: Record<string, string>,
  ) {
    this.stamp = stampOf(labels);
  }

  /** An object's labels here: the owner labels, with its own beside them (the sink refuses own labels that name an owner label). */
  private stampFor(ready: Ready): Stamp {
    const own = ready.labels;
    if (own === undefined) return this.stamp;
    let stamp = this.stamps.get(own);
    if (stamp === undefined) this.stamps.set(own, (stamp = stampOf({ ...own, ...this.labels })));
    return stamp;
  }

  /** Whether the pending changes are many enough to sort the cluster again whole. */
  wantsRebuild(): boolean {
    return this.dirty && this.added.length + this.removed.length > this.size * PATCH_LIMIT;
  }

  /** The entries after the pending changes, in no order, for a rebuild; clears the pending changes. */
  takeAll(): Entry[] {
    const gone = new Map<Entry, number>();
    for (const e of this.removed) gone.set(e, (gone.get(e) ?? 0) + 1);
    const kept = this.chunks
      .flatMap((c) => c.raw)
      .filter((e) => {
        const n = gone.get(e);
        if (n === undefined) return true;
        if (n === 1) gone.delete(e);
        else gone.set(e, n - 1);
        return false;
      });
    const all = [...kept, ...this.added];
    this.added = [];
    this.removed = [];
    return all;
  }

  /** Replaces every object with `sorted` (in key order). */
  rebuild(sorted: readonly Entry[], prepare: (entry: Entry) => Ready): void {
    this.chunks = this.cut(sorted, prepare);
    this.size = sorted.length;
  }

  /** The output for the current objects: the previous one when nothing changed. */
  output(prepare: (entry: Entry) => Ready): ClusterOutput {
    if (this.dirty || this.last === undefined) {
      this.patch(prepare);
      this.last = this.encode();
      this.dirty = false;
    }
    return this.last;
  }

  /** Applies the pending additions and removals to the chunks they fall in, and re-cuts those. */
  private patch(prepare: (entry: Entry) => Ready): void {
    if (this.added.length === 0 && this.removed.length === 0) return;
    const raws: (readonly Entry[])[] = this.chunks.map((c) => c.raw);
    // Touched chunks get their own copy of their entries, once.
    const touched = new Map<number, Entry[]>();
    const own = (i: number): Entry[] => {
      let raw = touched.get(i);
      if (raw === undefined) touched.set(i, (raw = [...(raws[i] ?? [])]));
      raws[i] = raw;
      return raw;
    };
    for (const entry of this.removed) {
      const raw = own(this.chunkOf(entry.key));
      const at = raw.indexOf(entry);
      if (at < 0) throw new TranslateError(`output of cluster ${this.cluster} lost ${entry.draft.kind} ${entry.draft.name}`);
      raw.splice(at, 1);
    }
    for (const entry of this.added) {
      const raw = own(Math.max(this.chunkOf(entry.key), 0));
      let at = lowerBound(raw, entry.key);
      while (at < raw.length && (raw[at] as Entry).key === entry.key) at++;
      raw.splice(at, 0, entry);
    }
    this.size += this.added.length - this.removed.length;
    this.added = [];
    this.removed = [];
    // Re-cut each run of touched chunks; a run whose new last object no longer ends a chunk takes in the next one.
    const next: Chunk[] = [];
    for (let i = 0; i < raws.length; i++) {
      if (!touched.has(i)) {
        next.push(this.chunks[i] as Chunk);
        continue;
      }
      let raw = raws[i] as Entry[];
      while (touched.has(i + 1)) raw = raw.concat(raws[++i] as Entry[]);
      let pieces = this.cut(raw, prepare);
      while (i + 1 < raws.length && !endsLast(pieces)) {
        raw = raw.concat(raws[++i] as Entry[]);
        while (touched.has(i + 1)) raw = raw.concat(raws[++i] as Entry[]);
        pieces = this.cut(raw, prepare);
      }
      next.push(...pieces);
    }
    this.chunks = next;
  }

  /** Index of the chunk a key belongs in: the last one whose first key is not above it (-1: before all). */
  private chunkOf(key: string): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (((this.chunks[mid] as Chunk).raw[0] as Entry).key <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }

  /** Folds, prepares and cuts entries in key order into chunks. */
  private cut(raw: readonly Entry[], prepare: (entry: Entry) => Ready): Chunk[] {
    const chunks: Chunk[] = [];
    let start = 0;
    let folded: Entry[] = [];
    for (let i = 0; i < raw.length; i++) {
      const entry = raw[i] as Entry;
      const last = folded[folded.length - 1];
      if (last === undefined || last.key !== entry.key) folded.push(entry);
      else folded[folded.length - 1] = merged(last, entry, raw, i, this.cluster);
      const nextKey = raw[i + 1]?.key;
      if (nextKey === entry.key) continue; // an object's entries stay in one chunk
      const done = folded[folded.length - 1] as Entry;
      if (nextKey !== undefined && !endsChunk(prepare(done).digest)) continue;
      const ready: Ready[] = [];
      for (const object of folded) ready.push(prepare(object));
      const stamps = ready.map((r) => this.stampFor(r));
      chunks.push({ raw: raw.slice(start, i + 1), folded, ready, stamps, digest: chunkDigest(ready, stamps) });
      start = i + 1;
      folded = [];
    }
    return chunks;
  }

  private encode(): ClusterOutput {
    const hash = createHash("sha256").update(`${CONTENT_HASH_SCHEME}\n[${this.certificates.map((c) => JSON.stringify(c)).join(",")}]\n`);
    hash.update(Buffer.concat(this.chunks.map((chunk) => chunk.digest)));
    return encodedOutput({ chunks: this.chunks }, this.certificates, `sha256:${hash.digest("hex")}`);
  }
}

function endsLast(chunks: readonly Chunk[]): boolean {
  const last = chunks[chunks.length - 1];
  return last === undefined || endsChunk((last.ready[last.ready.length - 1] as Ready).digest);
}

/**
 * Folds `entry` into `last`, an entry of the same key: the same draft held twice is kept once; an
 * identical object generated twice is kept once with the parents merged; two different objects under
 * one name (another apiVersion, spec, own labels or own annotations) are a translator bug.
 */
function merged(last: Entry, entry: Entry, raw: readonly Entry[], i: number, cluster: string): Entry {
  for (let j = i - 1; j >= 0 && (raw[j] as Entry).key === entry.key; j--) if (raw[j] === entry) return last;
  const { draft } = entry;
  const { apiVersion, spec, labels, annotations } = last.draft;
  if (apiVersion !== draft.apiVersion || !deepEqual(spec, draft.spec) || !deepEqual(labels, draft.labels) || !deepEqual(annotations, draft.annotations)) {
    throw new TranslateError(`two different ${draft.kind} objects named ${draft.namespace}/${draft.name} in cluster ${cluster}`);
  }
  return { ...last, draft: { ...last.draft, parents: [...last.draft.parents, ...draft.parents] }, ready: undefined, refs: 0 };
}

/** SHA-256 over each object's digest and its labels' digest (Canonicalizer.contentHash). */
function chunkDigest(ready: readonly Ready[], stamps: readonly Stamp[]): Buffer {
  const bytes = Buffer.allocUnsafe(ready.length * 64);
  for (let i = 0; i < ready.length; i++) {
    bytes.set((ready[i] as Ready).digest, i * 64);
    bytes.set((stamps[i] as Stamp).digest, i * 64 + 32);
  }
  return digest(bytes);
}

/** First index in `sorted` whose key is not below `key`. */
function lowerBound(sorted: readonly Entry[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as Entry).key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Sorts entries by key through one sort of the distinct entries among all the lists, then integer ranks per list. */
export function sortAll(lists: readonly Entry[][]): Entry[][] {
  const distinct = new Set<Entry>();
  for (const list of lists) for (const e of list) distinct.add(e);
  const ordered = [...distinct].sort((a, b) => compareStrings(a.key, b.key));
  for (let rank = 0; rank < ordered.length; rank++) (ordered[rank] as Entry).rank = rank;
  return lists.map((list) => {
    const ranks = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) ranks[i] = (list[i] as Entry).rank;
    ranks.sort();
    const sorted: Entry[] = [];
    for (const rank of ranks) sorted.push(ordered[rank] as Entry);
    return sorted;
  });
}

/** What an output keeps instead of materialised objects: the chunks it was made from. */
interface Encoding {
  chunks: readonly Chunk[];
}

const ENCODING = Symbol("meshplane.encoding");
const COMMA = Buffer.from(",");
const OPEN = Buffer.from("[");
const CLOSE = Buffer.from("]");

/**
 * A ClusterOutput whose `objects` are built on first use. A 100-cluster tenant has over a million
 * objects, and the worker never needs them as JS objects: it publishes their JSON (`objectsJson`)
 * and reads their names and parents (`objectRefs`) straight from the encodings.
 */
function encodedOutput(encoding: Encoding, certificates: CertificateDirective[], hash: string): ClusterOutput {
  let objects: KubeObject[] | undefined;
  const output = { certificates, hash } as ClusterOutput;
  Object.defineProperty(output, "objects", {
    enumerable: true,
    get: () =>
      (objects ??= encoding.chunks.flatMap((chunk) =>
        chunk.folded.map(({ draft }, i): KubeObject => {
          const r = chunk.ready[i] as Ready;
          return {
            apiVersion: draft.apiVersion,
            kind: draft.kind,
            metadata: { annotations: r.annotations, labels: (chunk.stamps[i] as Stamp).value, name: draft.name, namespace: draft.namespace },
            spec: r.spec,
          };
        }),
      )),
  });
  Object.defineProperty(output, ENCODING, { enumerable: false, value: encoding });
  return output;
}

const encodingOf = (output: ClusterOutput): Encoding | undefined => (output as unknown as { [ENCODING]?: Encoding })[ENCODING];

/** The JSON array of a cluster's objects, exactly as hashed (canonical), without building them. */
export function objectsJson(output: ClusterOutput): Buffer {
  const encoding = encodingOf(output);
  if (encoding === undefined) return Buffer.from(`[${output.objects.map((o) => canonicalJson(o)).join(",")}]`);
  const pieces: Buffer[] = [OPEN];
  for (const chunk of encoding.chunks) {
    chunk.ready.forEach((r, i) => {
      if (pieces.length > 1) pieces.push(COMMA);
      pieces.push(r.head, (chunk.stamps[i] as Stamp).bytes, r.tail);
    });
  }
  pieces.push(CLOSE);
  return Buffer.concat(pieces);
}

/** How many objects a cluster's output holds, without building them. */
export function objectCount(output: ClusterOutput): number {
  return encodingOf(output)?.chunks.reduce((n, c) => n + c.folded.length, 0) ?? output.objects.length;
}

/** Each object's kind, namespace, name and parents annotation, in output order, without building the objects. */
export function objectRefs(output: ClusterOutput, parentsAnnotation: string): { kind: string; namespace?: string; name: string; parents: string }[] {
  const encoding = encodingOf(output);
  if (encoding === undefined)
    return output.objects.map((o) => ({
      kind: o.kind,
      namespace: o.metadata.namespace,
      name: o.metadata.name,
      parents: o.metadata.annotations[parentsAnnotation] ?? "[]",
    }));
  return encoding.chunks.flatMap((chunk) =>
    chunk.folded.map(({ draft }, i) => ({
      kind: draft.kind,
      namespace: draft.namespace,
      name: draft.name,
      parents: (chunk.ready[i] as Ready).annotations[parentsAnnotation] ?? "[]",
    })),
  );
}
