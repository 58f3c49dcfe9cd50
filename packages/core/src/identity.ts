import type { UserKind } from "./api/index";

/**
 * How meshplane names things between its parts, defined once: the translator, the worker, the API and
 * the agent all build these keys here, so a report from an agent finds the object the worker
 * published and a status finds the resource it belongs to. (DynamoDB keys are another matter: they
 * live in functions/store/keys.ts.)
 */

/** `Kind/namespace/name` of an object in a cluster; a cluster-scoped object has an empty namespace. */
export type ObjectKey = `${string}/${string}/${string}`;

/** The key of an object in one cluster (apply, prune, drift, per-object failures, plan diffs). */
export function objectKey(kind: string, namespace: string | undefined, name: string): ObjectKey {
  return `${kind}/${namespace ?? ""}/${name}`;
}

/** objectKey of a Kubernetes object; a missing name counts as empty, as the agent lists them. */
export function objectKeyOf(object: { kind: string; metadata?: { namespace?: string; name?: string } }): ObjectKey {
  return objectKey(object.kind, object.metadata?.namespace, object.metadata?.name ?? "");
}

/** `Kind/name` of a user resource: the key of its status, its reports and its place in a request. */
export type ResourceKey = `${UserKind}/${string}`;

/**
 * `Kind/name`. With a user kind it is a ResourceKey; the parents annotation names a Destination the
 * same way, so any kind is accepted and the type says which.
 */
export function resourceKey<K extends string>(kind: K, name: string): `${K}/${string}` {
  return `${kind}/${name}`;
}

/** resourceKey of a stored resource or a document. */
export function resourceKeyOf<K extends UserKind>(resource: { kind: K; metadata: { name: string } }): `${K}/${string}` {
  return resourceKey(resource.kind, resource.metadata.name);
}
