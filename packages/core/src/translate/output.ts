import { Canonicalizer } from "./canonical";
import { compareStrings } from "./compare";
import { TranslateError } from "./errors";
import { deepEqual } from "./owned-fields";
import type { CertificateDirective, ClusterOutput, KubeObject } from "./types";

export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const LABEL_TENANT = "meshplane.dev/tenant";
export const LABEL_CLUSTER = "meshplane.dev/cluster";
export const ANNOTATION_PARENTS = "meshplane.dev/parents";

/**
 * Apply order (types.ts: objects are sorted by kind order). Make before break: hosts
 * (ServiceEntry) exist before anything names them, subsets (DestinationRule) before routes use
 * them, clients send mTLS before PeerAuthentication demands it, SMI route groups before the
 * TrafficTargets that name them.
 */
export const KIND_ORDER = [
  "ServiceEntry",
  "DestinationRule",
  "Gateway",
  "VirtualService",
  "PeerAuthentication",
  "AuthorizationPolicy",
  "HTTPRouteGroup",
  "TrafficTarget",
  "TrafficSplit",
] as const;
type GeneratedKind = (typeof KIND_ORDER)[number];
const KIND_RANK = new Map<string, number>(KIND_ORDER.map((kind, i) => [kind, i]));

/** What produced an object: a user resource, or (for objects that exist for a service alone) its Destination. */
export interface Parent {
  kind: "VirtualMesh" | "TrafficPolicy" | "AccessPolicy" | "Destination";
  name: string;
}

/** An object before labels and annotations: translators describe, the sink stamps and sorts. */
export interface ObjectDraft {
  apiVersion: string;
  kind: GeneratedKind;
  name: string;
  namespace: string;
  /** May be shared between clusters; never mutated after `add`. */
  spec: Record<string, unknown>;
  parents: Iterable<Parent>;
}

interface Entry {
  draft: ObjectDraft;
  parents: Map<string, Parent>;
}

function parentKey(parent: Parent): string {
  return `${parent.kind}/${parent.name}`;
}

/**
 * Collects the generated objects of every registered cluster and turns them into ClusterOutputs:
 * owner labels and the parents annotation on each object (API.md §8), kind order then namespace then
 * name, canonical key order, a content hash. The same object generated twice (two meshes of one
 * VirtualMesh sharing an Istio namespace) is kept once with the parents merged; two *different*
 * objects under one name are a translator bug and throw TranslateError.
 */
export class OutputSink {
  private readonly objects = new Map<string, Map<string, Entry>>();
  private readonly certificates = new Map<string, CertificateDirective[]>();

  constructor(
    private readonly tenant: string,
    clusters: readonly string[],
  ) {
    for (const cluster of clusters) {
      this.objects.set(cluster, new Map());
      this.certificates.set(cluster, []);
    }
  }

  add(cluster: string, draft: ObjectDraft): void {
    const entries = this.objects.get(cluster);
    if (entries === undefined) throw new TranslateError(`generated ${draft.kind} ${draft.name} for unregistered cluster ${cluster}`);
    const key = `${KIND_RANK.get(draft.kind)}\u0000${draft.namespace}\u0000${draft.name}`;
    const existing = entries.get(key);
    const parents = new Map([...draft.parents].map((p) => [parentKey(p), p]));
    if (existing === undefined) {
      entries.set(key, { draft, parents });
      return;
    }
    if (existing.draft.apiVersion !== draft.apiVersion || !deepEqual(existing.draft.spec, draft.spec)) {
      throw new TranslateError(`two different ${draft.kind} objects named ${draft.namespace}/${draft.name} in cluster ${cluster}`);
    }
    for (const [k, p] of parents) existing.parents.set(k, p);
  }

  addCertificate(cluster: string, directive: CertificateDirective): void {
    const list = this.certificates.get(cluster);
    if (list === undefined) throw new TranslateError(`certificate directive for unregistered cluster ${cluster}`);
    list.push(directive);
  }

  /** One ClusterOutput per registered cluster, objects sorted and canonical, with its content hash. */
  finish(): Record<string, ClusterOutput> {
    const canon = new Canonicalizer();
    const out: Record<string, ClusterOutput> = {};
    const annotationMemo = new Map<string, Record<string, string>>();
    for (const [cluster, entries] of this.objects) {
      const labels = { [LABEL_MANAGED_BY]: "meshplane", [LABEL_CLUSTER]: cluster, [LABEL_TENANT]: this.tenant };
      const keys = [...entries.keys()].sort(compareKeys);
      const objects = keys.map((key) => canon.canonicalize(this.stamp(entries.get(key) as Entry, labels, annotationMemo)));
      const certificates = (this.certificates.get(cluster) ?? [])
        .map((c) => canon.canonicalize(c))
        .sort((a, b) => compareStrings(a.mesh, b.mesh));
      out[cluster] = { objects, certificates, hash: canon.contentHash(objects, certificates) };
    }
    return out;
  }

  private stamp(entry: Entry, labels: Record<string, string>, memo: Map<string, Record<string, string>>): KubeObject {
    const parents = [...entry.parents.values()].sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name));
    const json = JSON.stringify(parents.map((p) => ({ kind: p.kind, name: p.name })));
    let annotations = memo.get(json);
    if (annotations === undefined) memo.set(json, (annotations = { [ANNOTATION_PARENTS]: json }));
    const { apiVersion, kind, name, namespace, spec } = entry.draft;
    return { apiVersion, kind, metadata: { name, namespace, labels, annotations }, spec };
  }
}

/** Keys are `<kind rank>\0<namespace>\0<name>`; ranks are one digit, so string order is kind order. */
function compareKeys(a: string, b: string): number {
  return compareStrings(a, b);
}
