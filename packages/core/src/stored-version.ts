import { canonicalJson } from "./translate/output/canonical";
import { API_VERSION } from "./api/common";
import type { StoredResource, UserDocument } from "./api/resource";
import type { ResourceSource } from "./api/source";
import { pendingStatus } from "./api/status";

/** What only the writer knows: the time, the tenant revision the write gets, a uid for a new resource. */
export interface VersionStamp {
  now: string;
  resourceVersion: string;
  /** Used only when there is no existing version. */
  uid: string;
}

const nonEmpty = (map: Record<string, string> | undefined) => (map && Object.keys(map).length > 0 ? map : undefined);

/**
 * The version of a user resource that storing `doc` over `existing` (undefined: none yet) leaves —
 * what the API writes and what `/v1/plan` translates, so the two cannot disagree. Returns undefined
 * when nothing the user owns changed, so an idempotent apply writes nothing. Generation moves only
 * with the spec; labels and annotations move resourceVersion alone, as in Kubernetes. Empty label or
 * annotation maps are not stored. Status is kept across spec changes: the translator reads its
 * acceptance order, and observedGeneration < generation tells a reader it is stale until the next
 * translation. `source` is set on a resource authored in a cluster (docs/gitops.md#names-and-sources):
 * a new custom-resource generation or uid there moves resourceVersion like a label does.
 */
export function nextStoredVersion(
  existing: StoredResource | undefined,
  doc: UserDocument,
  stamp: VersionStamp,
  source?: ResourceSource,
): StoredResource | undefined {
  const specChanged = !existing || canonicalJson(existing.spec) !== canonicalJson(doc.spec);
  const metaChanged =
    !existing ||
    canonicalJson(existing.metadata.labels ?? {}) !== canonicalJson(doc.metadata.labels ?? {}) ||
    canonicalJson(existing.metadata.annotations ?? {}) !== canonicalJson(doc.metadata.annotations ?? {}) ||
    canonicalJson(existing.metadata.source ?? null) !== canonicalJson(source ?? null);
  if (!specChanged && !metaChanged) return undefined;
  const generation = existing ? existing.metadata.generation + (specChanged ? 1 : 0) : 1;
  const labels = nonEmpty(doc.metadata.labels);
  const annotations = nonEmpty(doc.metadata.annotations);
  return {
    apiVersion: API_VERSION,
    kind: doc.kind,
    metadata: {
      name: doc.metadata.name,
      ...(labels ? { labels } : {}),
      ...(annotations ? { annotations } : {}),
      uid: existing?.metadata.uid ?? stamp.uid,
      generation,
      resourceVersion: stamp.resourceVersion,
      createdAt: existing?.metadata.createdAt ?? stamp.now,
      updatedAt: stamp.now,
      ...(source ? { source } : {}),
    },
    spec: doc.spec,
    status: existing?.status ?? pendingStatus(generation),
  } as StoredResource;
}
