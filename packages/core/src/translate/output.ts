import { resourceKey } from "../identity";
import { CONTENT_HASH_SCHEME, canonicalize, canonicalJson, digest } from "./canonical";
import { compareStrings } from "./compare";
import { TranslateError } from "./errors";
import { HashWriter } from "./hash-writer";
import { GENERATED_KINDS, type GeneratedKind, apiVersionsOf, kindRank } from "./generated-kinds";
import { deepEqual } from "./owned-fields";
import type { CertificateDirective, ClusterOutput, KubeObject } from "./types";

/** Labels and annotation every generated object carries (API.md §8); the agent prunes by them. */
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const LABEL_TENANT = "meshplane.dev/tenant";
export const LABEL_CLUSTER = "meshplane.dev/cluster";
export const ANNOTATION_PARENTS = "meshplane.dev/parents";

/** Orders entries by kind (generated-kinds.ts) with a fixed-width prefix, so string order is rank order. */
const KIND_PREFIX = new Map<string, string>(GENERATED_KINDS.map((row) => [row.kind, String(kindRank(row.kind)).padStart(2, "0")]));
/** `kind` → the apiVersions it may be written in: anything else would escape the agent's prune. */
const API_VERSIONS = new Map<string, ReadonlySet<string>>(GENERATED_KINDS.map((row) => [row.kind, new Set(apiVersionsOf(row))]));

/** What produced an object: a user resource, or (for objects that exist for a service alone) its Destination. */
export interface Parent {
  kind: "VirtualMesh" | "TrafficPolicy" | "AccessPolicy" | "Destination";
  name: string;
}

/**
 * An object before labels and annotations: translators describe, the sink stamps and sorts. A draft
 * has nothing cluster-specific, so one draft may be added to many clusters (a federated host's
 * ServiceEntry goes to every mesh it is federated to); it must not be mutated after `add`.
 */
export interface ObjectDraft {
  apiVersion: string;
  kind: GeneratedKind;
  name: string;
  namespace: string;
  spec: Record<string, unknown>;
  parents: readonly Parent[];
}

/** A draft as the sink tracks it: prepared once however many clusters it goes to. */
interface Entry {
  draft: ObjectDraft;
  /** Orders by kind, namespace, name (`\0` sorts before any name character). */
  key: string;
  /** Position of the entry among all distinct entries in output order. */
  rank: number;
  /** Set on first use by `prepared`. */
  ready?: Ready;
}

/** What stamping needs: canonical spec, annotations, the canonical JSON around the labels, and the object's digest. */
interface Ready {
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
  head: Buffer;
  tail: Buffer;
  /** SHA-256 of the object's canonical JSON without its labels (Canonicalizer.contentHash). */
  digest: Buffer;
}

const COMMA = Buffer.from(",");
const OPEN = Buffer.from("[");
const CLOSE = Buffer.from("]");

/**
 * Collects the generated objects of every registered cluster and turns them into ClusterOutputs:
 * owner labels and the parents annotation on each object (API.md §8), kind order then namespace then
 * name, canonical key order, a content hash. The same object generated twice (two meshes of one
 * VirtualMesh sharing an Istio namespace) is kept once with the parents merged; two *different*
 * objects under one name are a translator bug and throw TranslateError.
 *
 * A 100-cluster tenant yields over a million objects, most of them one draft shared by many
 * clusters, so each distinct draft is prepared, sorted and digested once; per cluster only integer
 * ranks are sorted and 64 bytes per object folded into the hash. The hash equals
 * `Canonicalizer.contentHash` over the returned objects (tested).
 */
export class OutputSink {
  private readonly entries = new Map<ObjectDraft, Entry>();
  private readonly byCluster = new Map<string, Entry[]>();
  private readonly certificates = new Map<string, CertificateDirective[]>();

  constructor(
    private readonly tenant: string,
    clusters: readonly string[],
  ) {
    for (const cluster of clusters) {
      this.byCluster.set(cluster, []);
      this.certificates.set(cluster, []);
    }
  }

  add(cluster: string, draft: ObjectDraft): void {
    const list = this.byCluster.get(cluster);
    if (list === undefined) throw new TranslateError(`generated ${draft.kind} ${draft.name} for unregistered cluster ${cluster}`);
    let entry = this.entries.get(draft);
    if (entry === undefined) {
      if (!API_VERSIONS.get(draft.kind)?.has(draft.apiVersion)) throw new TranslateError(`generated ${draft.kind} ${draft.name} as ${draft.apiVersion}, which GENERATED_KINDS does not list`);
      this.entries.set(draft, (entry = { draft, key: `${KIND_PREFIX.get(draft.kind)}${draft.namespace}\u0000${draft.name}`, rank: -1 }));
    }
    list.push(entry);
  }

  addCertificate(cluster: string, directive: CertificateDirective): void {
    const list = this.certificates.get(cluster);
    if (list === undefined) throw new TranslateError(`certificate directive for unregistered cluster ${cluster}`);
    list.push(directive);
  }

  /** One ClusterOutput per registered cluster, objects sorted and canonical, with its content hash. */
  finish(): Record<string, ClusterOutput> {
    const ordered = [...this.entries.values()].sort((a, b) => compareStrings(a.key, b.key));
    ordered.forEach((entry, rank) => (entry.rank = rank));
    const preparer = new Preparer();
    const out: Record<string, ClusterOutput> = {};
    for (const [cluster, entries] of this.byCluster) {
      out[cluster] = this.clusterOutput(cluster, inOutputOrder(entries, ordered, cluster), preparer);
      this.byCluster.set(cluster, []);
    }
    return out;
  }

  private clusterOutput(cluster: string, entries: readonly Entry[], preparer: Preparer): ClusterOutput {
    const labels = { [LABEL_MANAGED_BY]: "meshplane", [LABEL_CLUSTER]: cluster, [LABEL_TENANT]: this.tenant };
    const labelBytes = Buffer.from(JSON.stringify(labels));
    const certificates = (this.certificates.get(cluster) ?? []).map((c) => canonicalize(c)).sort((a, b) => compareStrings(a.mesh, b.mesh));
    // The content hash as Canonicalizer.contentHash defines it: per object its digest (made once
    // per distinct object) and the cluster's labels digest.
    const hash = new HashWriter();
    hash.text(`${CONTENT_HASH_SCHEME}\n[${certificates.map((c) => JSON.stringify(c)).join(",")}]\n`);
    const labelDigest = digest(labelBytes);
    const ready = entries.map((entry): Ready => {
      const r = entry.ready ?? (entry.ready = preparer.prepare(entry.draft));
      hash.bytes(r.digest);
      hash.bytes(labelDigest);
      return r;
    });
    return encodedOutput(entries.map((e) => e.draft), ready, labels, labelBytes, certificates, hash.digest());
  }
}

/** What an output of the sink keeps instead of materialised objects: the drafts and their encodings. */
interface Encoding {
  drafts: readonly ObjectDraft[];
  ready: readonly Ready[];
  labels: Record<string, string>;
  labelBytes: Buffer;
}

const ENCODING = Symbol("meshplane.encoding");

/**
 * A ClusterOutput whose `objects` are built on first use. A 100-cluster tenant has over a million
 * objects, and the worker never needs them as JS objects: it publishes their JSON (`objectsJson`)
 * and reads their names and parents (`objectRefs`) straight from the encodings.
 */
function encodedOutput(drafts: readonly ObjectDraft[], ready: readonly Ready[], labels: Record<string, string>, labelBytes: Buffer, certificates: CertificateDirective[], hash: string): ClusterOutput {
  let objects: KubeObject[] | undefined;
  const output = { certificates, hash } as ClusterOutput;
  Object.defineProperty(output, "objects", {
    enumerable: true,
    get: () =>
      (objects ??= drafts.map((draft, i): KubeObject => {
        const r = ready[i] as Ready;
        return { apiVersion: draft.apiVersion, kind: draft.kind, metadata: { annotations: r.annotations, labels, name: draft.name, namespace: draft.namespace }, spec: r.spec };
      })),
  });
  Object.defineProperty(output, ENCODING, { enumerable: false, value: { drafts, ready, labels, labelBytes } satisfies Encoding });
  return output;
}

const encodingOf = (output: ClusterOutput): Encoding | undefined => (output as unknown as { [ENCODING]?: Encoding })[ENCODING];

/** The JSON array of a cluster's objects, exactly as hashed (canonical), without building them. */
export function objectsJson(output: ClusterOutput): Buffer {
  const encoding = encodingOf(output);
  if (encoding === undefined) return Buffer.from(`[${output.objects.map((o) => canonicalJson(o)).join(",")}]`);
  const pieces: Buffer[] = [OPEN];
  encoding.ready.forEach((r, i) => {
    if (i > 0) pieces.push(COMMA);
    pieces.push(r.head, encoding.labelBytes, r.tail);
  });
  pieces.push(CLOSE);
  return Buffer.concat(pieces);
}

/** How many objects a cluster's output holds, without building them. */
export function objectCount(output: ClusterOutput): number {
  return encodingOf(output)?.drafts.length ?? output.objects.length;
}

/** Each object's kind, namespace, name and parents annotation, in output order, without building the objects. */
export function objectRefs(output: ClusterOutput): { kind: string; namespace?: string; name: string; parents: string }[] {
  const encoding = encodingOf(output);
  if (encoding === undefined) return output.objects.map((o) => ({ kind: o.kind, namespace: o.metadata.namespace, name: o.metadata.name, parents: o.metadata.annotations[ANNOTATION_PARENTS] ?? "[]" }));
  return encoding.drafts.map((d, i) => ({ kind: d.kind, namespace: d.namespace, name: d.name, parents: (encoding.ready[i] as Ready).annotations[ANNOTATION_PARENTS] ?? "[]" }));
}

/**
 * A cluster's entries in output order, identical duplicates folded into one with their parents
 * merged (different duplicates throw). Sorting integer ranks is what keeps this cheap per cluster.
 */
function inOutputOrder(entries: readonly Entry[], ordered: readonly Entry[], cluster: string): Entry[] {
  const ranks = Int32Array.from(entries, (e) => e.rank).sort();
  const out: Entry[] = [];
  let previous = -1;
  for (const rank of ranks) {
    if (rank === previous) continue; // the same draft added twice
    previous = rank;
    const entry = ordered[rank] as Entry;
    const last = out[out.length - 1];
    if (last === undefined || last.key !== entry.key) {
      out.push(entry);
      continue;
    }
    const { draft } = entry;
    if (last.draft.apiVersion !== draft.apiVersion || !deepEqual(last.draft.spec, draft.spec)) {
      throw new TranslateError(`two different ${draft.kind} objects named ${draft.namespace}/${draft.name} in cluster ${cluster}`);
    }
    out[out.length - 1] = { ...last, draft: { ...last.draft, parents: [...last.draft.parents, ...draft.parents] }, ready: undefined };
  }
  return out;
}

/** Prepares drafts for stamping, sharing work between drafts with the same spec or the same parents. */
class Preparer {
  private readonly specs = new Map<object, { spec: Record<string, unknown>; json: string }>();
  private readonly notes = new Map<readonly Parent[], { value: Record<string, string>; json: string }>();
  private readonly noteByText = new Map<string, { value: Record<string, string>; json: string }>();

  prepare(draft: ObjectDraft): Ready {
    const { apiVersion, kind, name, namespace } = draft;
    const spec = this.spec(draft.spec);
    const note = this.annotations(draft.parents);
    const front = `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},"metadata":{"annotations":${note.json}`;
    const tail = `,"name":${JSON.stringify(name)},"namespace":${JSON.stringify(namespace)}},"spec":${spec.json}}`;
    return {
      spec: spec.spec,
      annotations: note.value,
      head: Buffer.from(`${front},"labels":`),
      tail: Buffer.from(tail),
      // The canonical JSON without labels is the same text with the labels member left out.
      digest: digest(front + tail),
    };
  }

  private spec(spec: Record<string, unknown>): { spec: Record<string, unknown>; json: string } {
    let s = this.specs.get(spec);
    if (s === undefined) {
      const canonical = canonicalize(spec);
      this.specs.set(spec, (s = { spec: canonical, json: JSON.stringify(canonical) }));
    }
    return s;
  }

  /** The parents annotation: parents deduplicated and sorted by kind then name. */
  private annotations(parents: readonly Parent[]): { value: Record<string, string>; json: string } {
    const known = this.notes.get(parents);
    if (known !== undefined) return known;
    const unique = new Map(parents.map((p) => [resourceKey(p.kind, p.name), p]));
    const ordered = [...unique.values()].sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name));
    const text = JSON.stringify(ordered.map((p) => ({ kind: p.kind, name: p.name })));
    let note = this.noteByText.get(text);
    if (note === undefined) {
      const value = { [ANNOTATION_PARENTS]: text };
      this.noteByText.set(text, (note = { value, json: canonicalJson(value) }));
    }
    this.notes.set(parents, note);
    return note;
  }
}
