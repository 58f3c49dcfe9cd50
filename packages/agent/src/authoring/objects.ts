import {
  API_VERSION,
  type Condition,
  type CrRef,
  type FieldError,
  type SubmittedResource,
  USER_KINDS,
  canonicalJson,
  fieldErrors,
  submittedResource,
} from "@meshplane/core";

/**
 * The meshplane custom resources as the agent reads them from its cluster (docs/gitops.md#the-custom-resources):
 * their paths, their key in the agent's queues, and what of them is sent to the control plane.
 */

export type AuthoredKind = "VirtualMesh" | "TrafficPolicy" | "AccessPolicy";
export const AUTHORED_KINDS: readonly AuthoredKind[] = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"];

/** The agent's finalizer: a custom resource it submitted stays until it was deleted in the control plane too. */
export const FINALIZER = "meshplane.dev/authored";

/**
 * Annotations never sent: `kubectl apply`'s copy of the whole object, which would only make every
 * submission twice as large.
 */
const UNSENT_ANNOTATIONS = new Set(["kubectl.kubernetes.io/last-applied-configuration"]);

/** A meshplane custom resource, as the apiserver answers it. */
export interface CustomResource {
  apiVersion?: string;
  kind: AuthoredKind;
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    generation: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec?: unknown;
  status?: { observedGeneration?: number; conditions?: Condition[]; [field: string]: unknown };
}

/** The key of a custom resource in the agent's queues: one entry per kind, namespace and name, whatever its uid. */
export const keyOf = (cr: Pick<CustomResource, "kind" | "metadata">): string => `${cr.kind}/${cr.metadata.namespace}/${cr.metadata.name}`;

const GROUP_PATH = `/apis/${API_VERSION}`;

/** The collection of `kind` in `namespace`, or across the cluster when undefined. */
export function collectionPath(kind: AuthoredKind, namespace?: string): string {
  return `${GROUP_PATH}${namespace === undefined ? "" : `/namespaces/${namespace}`}/${USER_KINDS[kind].plural}`;
}

/** The object's path, or its `status` subresource's. */
export function objectPath(cr: Pick<CustomResource, "kind" | "metadata">, subresource?: "status"): string {
  const path = `${collectionPath(cr.kind, cr.metadata.namespace)}/${cr.metadata.name}`;
  return subresource ? `${path}/${subresource}` : path;
}

/** Where the custom resource is, as the delete and sync requests name it. */
export const refOf = (cr: Pick<CustomResource, "kind" | "metadata">): CrRef => ({
  kind: cr.kind,
  namespace: cr.metadata.namespace,
  name: cr.metadata.name,
  uid: cr.metadata.uid,
});

function sentAnnotations(cr: CustomResource): Record<string, string> | undefined {
  const kept = Object.entries(cr.metadata.annotations ?? {}).filter(([k]) => !UNSENT_ANNOTATIONS.has(k));
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** What of a custom resource is submitted: its generation, labels and annotations (a change of any is sent again). */
export function revisionOf(cr: CustomResource): string {
  return canonicalJson({ generation: cr.metadata.generation, labels: cr.metadata.labels ?? {}, annotations: sentAnnotations(cr) ?? {} });
}

/**
 * One custom resource as `POST /v1/agent/resources` takes it (docs/gitops.md#the-agent-protocol):
 * `{apiVersion, kind, metadata: {name, labels, annotations}, spec}` and where it is. A resource the
 * protocol cannot carry (a name that is no DNS label) is the field errors instead: it is never sent.
 */
export function submissionOf(cr: CustomResource): SubmittedResource | FieldError[] {
  const { name, namespace, uid, generation, labels } = cr.metadata;
  const annotations = sentAnnotations(cr);
  const item = {
    source: { namespace, name, uid, generation },
    document: {
      apiVersion: API_VERSION,
      kind: cr.kind,
      metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
      spec: cr.spec ?? {},
    },
  };
  const parsed = submittedResource.safeParse(item);
  if (parsed.success) return parsed.data;
  return fieldErrors(parsed.error).map((e) => ({ path: e.path.replace(/^source\./, "metadata."), message: e.message }));
}

/** Whether the custom resource carries the agent's finalizer. */
export const hasFinalizer = (cr: CustomResource): boolean => (cr.metadata.finalizers ?? []).includes(FINALIZER);

/**
 * The JSON merge patch that adds (or removes) the finalizer. Finalizers are a list, which a merge
 * patch replaces whole: the patch carries the resourceVersion it was computed from, so the apiserver
 * refuses it (409) if another writer changed the list meanwhile.
 */
export function finalizerPatch(cr: CustomResource, present: boolean): { metadata: { resourceVersion?: string; finalizers: string[] } } {
  const others = (cr.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
  return {
    metadata: {
      ...(cr.metadata.resourceVersion ? { resourceVersion: cr.metadata.resourceVersion } : {}),
      finalizers: present ? [...others, FINALIZER] : others,
    },
  };
}
