/** One document: a Gloo VirtualMesh, TrafficPolicy or AccessPolicy read into a meshplane kind and spec, or a failure. */
import type { UserKind } from "@meshplane/core";
import { Conversion, type Json, ShapeError, isRecord } from "./conversion";
import { accessPolicySpec, trafficPolicySpec, virtualMeshSpec } from "./kinds";
import type { ImportError } from "./report";

/** The one apiVersion imported: Gloo Mesh v1 networking. */
export const GLOO_API_VERSION = "networking.mesh.gloo.solo.io/v1";

/** A converted document, named as in Gloo until names.ts gives it its meshplane name. */
export interface Converted {
  kind: UserKind;
  name: string;
  namespace: string | undefined;
  where: string;
  labels: unknown;
  spec: Json;
  dropped: { path: string; reason: string }[];
}

/** A document that ends as an error, with the fields it could not carry over until then: both are reported. */
export interface Failure extends ImportError {
  dropped: { path: string; reason: string }[];
}

const KINDS: Record<string, (spec: unknown, c: Conversion) => Json> = {
  VirtualMesh: virtualMeshSpec,
  TrafficPolicy: trafficPolicySpec,
  AccessPolicy: accessPolicySpec,
};

// Server-set metadata: not intent, so not worth a line in the report.
const SERVER_METADATA = [
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "deletionTimestamp",
  "deletionGracePeriodSeconds",
  "managedFields",
  "selfLink",
  "finalizers",
  "ownerReferences",
];

/**
 * Converts one Gloo object found at `where` (`documents[0]`, `documents[1].items[2]`): its kind,
 * name, labels and spec, with the fields it dropped, or why it cannot be imported.
 */
export function convertDocument(value: unknown, where: string): Converted | Failure {
  const { apiVersion, kind } = isRecord(value) ? value : {};
  if (!isRecord(value) || typeof apiVersion !== "string" || typeof kind !== "string") {
    return { document: where, message: "not a Kubernetes object (expected a mapping with apiVersion and kind)", dropped: [] };
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
  const document = describe(kind, name, namespace, where);
  if (apiVersion !== GLOO_API_VERSION) {
    return {
      document,
      message: `not Gloo Mesh v1 networking YAML (apiVersion ${apiVersion}, kind ${kind}); only ${GLOO_API_VERSION} is imported`,
      dropped: [],
    };
  }
  const convertSpec = KINDS[kind];
  if (!convertSpec) {
    return { document, message: `kind ${kind} has no meshplane equivalent; only VirtualMesh, TrafficPolicy and AccessPolicy are imported`, dropped: [] };
  }
  if (name === undefined) return { document, message: "metadata.name is missing", dropped: [] };
  const c = new Conversion();
  try {
    c.record(value, "(root)", { keep: ["apiVersion", "kind", "metadata", "spec", "status"] });
    c.record(value.metadata, "metadata", {
      keep: ["name", "namespace", "labels", ...SERVER_METADATA],
      drop: {
        annotations:
          "not carried over (mostly tool bookkeeping such as kubectl's last-applied-configuration); add the ones you need under metadata.annotations",
      },
    });
    const spec = convertSpec(value.spec ?? {}, c);
    return { kind: kind as UserKind, name, namespace, where, labels: metadata.labels, spec, dropped: rooted(c.dropped) };
  } catch (error) {
    if (error instanceof ShapeError) return { document, message: `${error.path}: ${error.message}`, dropped: rooted(c.dropped) };
    throw error;
  }
}

/** Dropped paths as the report prints them: top-level fields without the `(root).` the readers use. */
function rooted(dropped: readonly { path: string; reason: string }[]): { path: string; reason: string }[] {
  return dropped.map((d) => ({ ...d, path: d.path.replace(/^\(root\)\./, "") }));
}

/** How the report names a document: `Kind namespace/name (where)`, or only where it is when unnamed. */
export function describe(kind: string | undefined, name: string | undefined, namespace: string | undefined, where: string): string {
  if (kind === undefined || name === undefined) return where;
  return `${kind} ${namespace === undefined ? "" : `${namespace}/`}${name} (${where})`;
}
