import { z } from "zod";
import { API_VERSION, clientMap, dnsLabel, labelMap } from "./common";
import { accessPolicySpec } from "./access-policy";
import { resourceName, resourceSource } from "./source";
import { resourceStatus } from "./status";
import { trafficPolicySpec } from "./traffic-policy";
import { virtualMeshSpec } from "./virtual-mesh";

/** User resource kinds and the REST collection each lives under. */
export const USER_KINDS = {
  VirtualMesh: { plural: "virtualmeshes", spec: virtualMeshSpec },
  TrafficPolicy: { plural: "trafficpolicies", spec: trafficPolicySpec },
  AccessPolicy: { plural: "accesspolicies", spec: accessPolicySpec },
} as const;
export type UserKind = keyof typeof USER_KINDS;
export const USER_KIND_NAMES = Object.keys(USER_KINDS) as UserKind[];

/** Annotations: any keys and values, each key kept as data (clientMap). */
const annotationMap = clientMap(z.string(), z.string());

/** Server-owned metadata. Accepted on input (clients round-trip what they read) but never trusted. */
const serverMetadata = {
  uid: z.string().optional(),
  generation: z.number().int().optional(),
  resourceVersion: z.string().optional(),
  createdAt: z.string().optional(),
  updatedAt: z.string().optional(),
};

export const inputMetadata = z.strictObject({
  name: dnsLabel,
  labels: labelMap.optional(),
  annotations: annotationMap.optional(),
  ...serverMetadata,
});
export type InputMetadata = z.infer<typeof inputMetadata>;

function documentOf<K extends UserKind>(kind: K) {
  return z.strictObject({
    apiVersion: z.literal(API_VERSION, { error: `must be ${API_VERSION}` }),
    kind: z.literal(kind),
    metadata: inputMetadata,
    spec: USER_KINDS[kind].spec,
    // Status is owned by the server; a client that round-trips a read object may send it back.
    status: z.unknown().optional(),
  });
}

export const virtualMeshDocument = documentOf("VirtualMesh");
export const trafficPolicyDocument = documentOf("TrafficPolicy");
export const accessPolicyDocument = documentOf("AccessPolicy");

export const DOCUMENT_SCHEMAS = {
  VirtualMesh: virtualMeshDocument,
  TrafficPolicy: trafficPolicyDocument,
  AccessPolicy: accessPolicyDocument,
} as const;

export type UserDocument = z.infer<(typeof DOCUMENT_SCHEMAS)[UserKind]>;

export const storedMetadata = z.strictObject({
  /** A DNS label, or `<name>.<namespace>.<cluster>` for a resource authored in a cluster (docs/gitops.md#names-and-sources). */
  name: resourceName,
  labels: labelMap.optional(),
  annotations: annotationMap.optional(),
  uid: z.string(),
  generation: z.number().int(),
  resourceVersion: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Set on a resource authored in a cluster: where it came from (docs/gitops.md#names-and-sources). */
  source: resourceSource.optional(),
});
export type StoredMetadata = z.infer<typeof storedMetadata>;

/** A user resource as the server stores and returns it. */
export interface StoredResource<K extends UserKind = UserKind> {
  apiVersion: typeof API_VERSION;
  kind: K;
  metadata: StoredMetadata;
  spec: z.infer<(typeof USER_KINDS)[K]["spec"]>;
  status: z.infer<typeof resourceStatus>;
}
