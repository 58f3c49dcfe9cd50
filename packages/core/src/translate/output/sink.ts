import { resourceKey } from "../../identity";
import { canonicalize, canonicalJson, digest } from "./canonical";
import { ClusterObjects, type Entry, type Ready, objectRefs as refsOf, sortAll } from "./cluster-objects";
import { compareStrings } from "../compare";
import { TranslateError } from "../errors";
import { deepEqual } from "../policy/owned-fields";
import { type GeneratedKind, apiVersionsOf, kindRank, rowOf } from "./generated-kinds";
import type { CertificateDirective, ClusterOutput } from "../types";

/** Labels and annotation every generated object carries (docs/resources.md#generated-objects); the agent prunes by them. */
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const LABEL_TENANT = "meshplane.dev/tenant";
export const LABEL_CLUSTER = "meshplane.dev/cluster";
export const ANNOTATION_PARENTS = "meshplane.dev/parents";
/** The owner labels the sink stamps on every object of a cluster; a draft's own labels may not name them. */
const OWNER_LABELS: readonly string[] = [LABEL_MANAGED_BY, LABEL_TENANT, LABEL_CLUSTER];

/** Orders entries by kind of a group (generated-kinds.ts) with a fixed-width prefix, so string order is rank order. */
const kindPrefix = (draft: ObjectDraft): string => String(kindRank(draft.apiVersion, draft.kind)).padStart(2, "0");

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
  /** Annotations besides the parents one (a generated waypoint's bindings); most objects have none. */
  annotations?: Readonly<Record<string, string>>;
  /**
   * Labels of its own besides meshplane's owner labels (an east-west gateway's network), which no
   * draft may set (OWNER_LABELS); most objects have none. Part of the object's content hash.
   */
  labels?: Readonly<Record<string, string>>;
}

/** Where translators put what they generate: objects and certificate directives, per cluster. */
export interface DraftSink {
  add(cluster: string, draft: ObjectDraft): void;
  addCertificate(cluster: string, directive: CertificateDirective): void;
}

/**
 * What one unit of translation (the VirtualMeshes, one destination's routing, one destination's
 * access) generated. Units hand their contribution to OutputSink whole; a unit whose contribution
 * is the same object as last time costs the sink nothing.
 */
export interface Contribution {
  readonly objects: readonly { cluster: string; draft: ObjectDraft }[];
  readonly certificates: readonly { cluster: string; directive: CertificateDirective }[];
}

/**
 * `next` with each draft that equals one of `previous` in the same cluster (same kind, namespace,
 * name, apiVersion, spec and parents) replaced by that earlier draft object. A unit translated again
 * mostly regenerates what it had; handing the sink the same objects keeps them out of its changes.
 */
export function keepUnchanged(
  previous: Contribution | undefined,
  next: readonly { cluster: string; draft: ObjectDraft }[],
): { cluster: string; draft: ObjectDraft }[] {
  if (previous === undefined || previous.objects.length === 0) return [...next];
  const before = new Map(previous.objects.map(({ cluster, draft }) => [`${cluster}\u0000${draft.kind}\u0000${draft.namespace}\u0000${draft.name}`, draft]));
  const same = new Map<ObjectDraft, ObjectDraft>();
  return next.map((pair) => {
    const old = before.get(`${pair.cluster}\u0000${pair.draft.kind}\u0000${pair.draft.namespace}\u0000${pair.draft.name}`);
    if (old === undefined) return pair;
    let kept = same.get(pair.draft);
    if (kept === undefined) {
      kept =
        old.apiVersion === pair.draft.apiVersion &&
        deepEqual(old.parents, pair.draft.parents) &&
        deepEqual(old.spec, pair.draft.spec) &&
        deepEqual(old.annotations, pair.draft.annotations) &&
        deepEqual(old.labels, pair.draft.labels)
          ? old
          : pair.draft;
      same.set(pair.draft, kept);
    }
    return kept === pair.draft ? pair : { cluster: pair.cluster, draft: kept };
  });
}

/** A DraftSink that keeps what it is given as one Contribution. */
export class Collector implements DraftSink {
  readonly objects: { cluster: string; draft: ObjectDraft }[] = [];
  readonly certificates: { cluster: string; directive: CertificateDirective }[] = [];

  add(cluster: string, draft: ObjectDraft): void {
    this.objects.push({ cluster, draft });
  }

  addCertificate(cluster: string, directive: CertificateDirective): void {
    this.certificates.push({ cluster, directive });
  }
}

/**
 * Collects the generated objects of every registered cluster and turns them into ClusterOutputs:
 * owner labels (and a draft's own labels beside them) and the parents annotation on each object
 * (docs/resources.md#generated-objects),
 * kind order then namespace then name, canonical key order, a content hash. The same object
 * generated twice (two meshes of one VirtualMesh sharing an Istio namespace) is kept once with the
 * parents merged; two *different* objects under one name are a translator bug and throw
 * TranslateError.
 *
 * The sink lives across translations (Translator): units hand in their whole contribution each time
 * (`contribute`), and only what changed since the previous `finish` reaches the clusters
 * (ClusterObjects re-cuts and re-digests only the chunks it falls in); a cluster nothing changed in
 * keeps its output object. A 100-cluster tenant yields over a million objects, most of them one
 * draft shared by many clusters, so each distinct draft is prepared and digested once, and clusters
 * sorted whole sort integer ranks. The hash equals `Canonicalizer.contentHash` over the returned
 * objects (tested).
 */
export class OutputSink {
  private readonly entries = new Map<ObjectDraft, Entry>();
  private readonly clusters = new Map<string, ClusterObjects>();
  private readonly units = new Map<string, Contribution>();
  private certificatesChanged = false;

  constructor(tenant: string, clusters: readonly string[]) {
    for (const cluster of clusters)
      this.clusters.set(cluster, new ClusterObjects(cluster, { [LABEL_MANAGED_BY]: "meshplane", [LABEL_CLUSTER]: cluster, [LABEL_TENANT]: tenant }));
  }

  /**
   * Sets what `unit` generates now, replacing what it generated before (the same object again costs
   * nothing). Throws TranslateError for an unregistered cluster, an apiVersion GENERATED_KINDS
   * does not list, or a draft whose own labels name an owner label.
   */
  contribute(unit: string, contribution: Contribution): void {
    const previous = this.units.get(unit);
    if (previous === contribution) return;
    for (const { cluster, draft } of contribution.objects) this.check(cluster, draft);
    for (const { cluster } of contribution.certificates)
      if (!this.clusters.has(cluster)) throw new TranslateError(`certificate directive for unregistered cluster ${cluster}`);
    this.units.set(unit, contribution);
    // Held and released per occurrence (a draft a unit lists twice for one cluster is held twice and
    // folded into one object), so a unit seen for the first time or gone costs no bookkeeping.
    if (previous === undefined || previous.objects.length === 0) {
      for (const { cluster, draft } of contribution.objects) this.hold(cluster, draft);
    } else if (contribution.objects.length === 0) {
      for (const { cluster, draft } of previous.objects) this.release(cluster, draft);
    } else {
      const counts = occurrences(previous);
      for (const { cluster, draft } of contribution.objects) {
        const byDraft = counts.get(cluster);
        const n = byDraft?.get(draft) ?? 0;
        if (n > 0) byDraft?.set(draft, n - 1);
        else this.hold(cluster, draft);
      }
      for (const [cluster, byDraft] of counts) for (const [draft, n] of byDraft) for (let i = 0; i < n; i++) this.release(cluster, draft);
    }
    if (contribution.certificates.length > 0 || (previous?.certificates.length ?? 0) > 0) this.certificatesChanged = true;
  }

  /** Takes away everything `unit` generated. */
  retire(unit: string): void {
    if (!this.units.has(unit)) return;
    this.contribute(unit, EMPTY);
    this.units.delete(unit);
  }

  /** One ClusterOutput per registered cluster, objects sorted and canonical, with its content hash. */
  finish(): Record<string, ClusterOutput> {
    if (this.certificatesChanged) this.placeCertificates();
    this.certificatesChanged = false;
    const preparer = new Preparer();
    const prepare = (entry: Entry) => (entry.ready ??= preparer.prepare(entry.draft));
    const rebuild = [...this.clusters.values()].filter((c) => c.wantsRebuild());
    const sorted = sortAll(rebuild.map((c) => c.takeAll()));
    rebuild.forEach((c, i) => c.rebuild(sorted[i] as Entry[], prepare));
    const out: Record<string, ClusterOutput> = {};
    for (const [cluster, objects] of this.clusters) out[cluster] = objects.output(prepare);
    return out;
  }

  private check(cluster: string, draft: ObjectDraft): void {
    if (!this.clusters.has(cluster)) throw new TranslateError(`generated ${draft.kind} ${draft.name} for unregistered cluster ${cluster}`);
    // The apiVersion picks the row (its group) and must be one of its versions: anything else would escape the agent's prune.
    const row = rowOf(draft.apiVersion, draft.kind);
    if (row === undefined || !apiVersionsOf(row).includes(draft.apiVersion))
      throw new TranslateError(`generated ${draft.kind} ${draft.name} as ${draft.apiVersion}, which GENERATED_KINDS does not list`);
    // The owner labels are what the agent applies and prunes by: a draft that set one would escape or steal ownership.
    const owner = OWNER_LABELS.find((key) => draft.labels !== undefined && Object.hasOwn(draft.labels, key));
    if (owner !== undefined)
      throw new TranslateError(`generated ${draft.kind} ${draft.namespace}/${draft.name} with its own ${owner} label, which only the sink sets`);
  }

  private hold(cluster: string, draft: ObjectDraft): void {
    let entry = this.entries.get(draft);
    if (entry === undefined) this.entries.set(draft, (entry = { draft, key: `${kindPrefix(draft)}${draft.namespace}\u0000${draft.name}`, rank: -1, refs: 0 }));
    entry.refs++;
    const objects = this.clusters.get(cluster) as ClusterObjects;
    objects.added.push(entry);
    objects.dirty = true;
  }

  private release(cluster: string, draft: ObjectDraft): void {
    const entry = this.entries.get(draft) as Entry;
    if (--entry.refs === 0) this.entries.delete(draft);
    const objects = this.clusters.get(cluster) as ClusterObjects;
    objects.removed.push(entry);
    objects.dirty = true;
  }

  /** Every cluster's certificate directives from the units that hold some; clusters whose list changed are dirty. */
  private placeCertificates(): void {
    const lists = new Map<string, CertificateDirective[]>([...this.clusters.keys()].map((c) => [c, []]));
    for (const contribution of this.units.values()) for (const { cluster, directive } of contribution.certificates) lists.get(cluster)?.push(directive);
    for (const [cluster, list] of lists) {
      const objects = this.clusters.get(cluster) as ClusterObjects;
      const sorted = list.map((c) => canonicalize(c)).sort((a, b) => compareStrings(a.mesh, b.mesh));
      if (JSON.stringify(sorted) === JSON.stringify(objects.certificates)) continue;
      objects.certificates = sorted;
      objects.dirty = true;
    }
  }
}

export { objectCount, objectsJson } from "./cluster-objects";

/** Each object's kind, namespace, name and parents annotation, in output order, without building the objects. */
export function objectRefs(output: ClusterOutput): { kind: string; namespace?: string; name: string; parents: string }[] {
  return refsOf(output, ANNOTATION_PARENTS);
}

const EMPTY: Contribution = { objects: [], certificates: [] };

/** The parents annotation with a draft's own annotations beside it (the parents annotation wins). */
function withExtra(parents: Record<string, string>, extra: Readonly<Record<string, string>>): { value: Record<string, string>; json: string } {
  const value = canonicalize({ ...extra, ...parents }) as Record<string, string>;
  return { value, json: canonicalJson(value) };
}

/** How many times a contribution lists each draft, by cluster. */
function occurrences(contribution: Contribution): Map<string, Map<ObjectDraft, number>> {
  const out = new Map<string, Map<ObjectDraft, number>>();
  for (const { cluster, draft } of contribution.objects) {
    let byDraft = out.get(cluster);
    if (byDraft === undefined) out.set(cluster, (byDraft = new Map()));
    byDraft.set(draft, (byDraft.get(draft) ?? 0) + 1);
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
    const parents = this.annotations(draft.parents);
    const note = draft.annotations === undefined ? parents : withExtra(parents.value, draft.annotations);
    const front = `{"apiVersion":${JSON.stringify(apiVersion)},"kind":${JSON.stringify(kind)},"metadata":{"annotations":${note.json}`;
    const tail = `,"name":${JSON.stringify(name)},"namespace":${JSON.stringify(namespace)}},"spec":${spec.json}}`;
    return {
      spec: spec.spec,
      annotations: note.value,
      ...(draft.labels === undefined ? {} : { labels: draft.labels }),
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
