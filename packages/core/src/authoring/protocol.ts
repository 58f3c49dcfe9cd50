import { z } from "zod";
import { dnsLabel, labelMap } from "../api/common";
import { resourceName, resourceSource } from "../api/source";
import { resourceStatus } from "../api/status";

/**
 * The authoring part of the agent protocol (docs/gitops.md#the-agent-protocol): what an agent sends
 * of the meshplane custom resources it watches, and what it reads back. The cluster is always the
 * agent's own, from its credential; a body never names one.
 */

const KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const;
const authoredKind = z.enum(KINDS);

/** At most this many custom resources in one submit, delete or status request. */
export const MAX_AUTHORED_BATCH = 50;
/** At most this many custom resources one cluster may hold in the control plane (a sync lists at most this many). */
export const MAX_AUTHORED_PER_CLUSTER = 5000;

/** Where a custom resource is in its cluster; the cluster is the agent's. */
export const crRef = z.strictObject({ kind: authoredKind, namespace: dnsLabel, name: dnsLabel, uid: resourceSource.shape.uid });
export type CrRef = z.infer<typeof crRef>;

/**
 * One custom resource to store: where it is (with its generation) and its document as the cluster
 * holds it. `document` is checked against the API's own schema by the control plane, field by field,
 * after the agent's transport check here (its kind and a bounded size).
 */
export const submittedResource = z.strictObject({
  source: resourceSource.omit({ cluster: true }),
  document: z.looseObject({ kind: authoredKind }),
});
export type SubmittedResource = z.infer<typeof submittedResource>;

/** `POST /v1/agent/resources`. */
export const submitRequest = z.strictObject({ items: z.array(submittedResource).min(1).max(MAX_AUTHORED_BATCH) });
export type SubmitRequest = z.infer<typeof submitRequest>;

/** The result for one submitted custom resource, in order: stored (under `name`), or refused with the reason and every problem. */
export const submitResult = z.discriminatedUnion("outcome", [
  z.object({
    outcome: z.literal("stored"),
    name: resourceName,
    generation: z.number().int(),
    action: z.enum(["created", "configured", "unchanged"]),
  }),
  z.object({
    outcome: z.literal("refused"),
    reason: z.enum(["Invalid", "OutsideGrant", "Conflict"]),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).min(1),
  }),
]);
export type SubmitResult = z.infer<typeof submitResult>;
export const submitResponse = z.object({ results: z.array(submitResult) });
export type SubmitResponse = z.infer<typeof submitResponse>;

/** `POST /v1/agent/resources/delete`: deletes each one the control plane holds for this cluster at that uid (a newer uid is kept). */
export const deleteRequest = z.strictObject({ items: z.array(crRef).min(1).max(MAX_AUTHORED_BATCH) });
export type DeleteRequest = z.infer<typeof deleteRequest>;
export const deleteResponse = z.object({ results: z.array(z.object({ outcome: z.enum(["deleted", "absent", "kept"]) })) });
export type DeleteResponse = z.infer<typeof deleteResponse>;

/**
 * `POST /v1/agent/resources/sync`: every custom resource the agent holds, once its watch has listed
 * them all; the control plane deletes this cluster's authored resources that are not among them.
 */
export const syncRequest = z.strictObject({ present: z.array(crRef).max(MAX_AUTHORED_PER_CLUSTER) });
export type SyncRequest = z.infer<typeof syncRequest>;
export const syncResponse = z.object({ deleted: z.number().int() });

/** One authored resource of this cluster as the control plane holds it: `GET /v1/agent/resources` (paged). */
export const authoredView = z.object({
  kind: authoredKind,
  name: resourceName,
  generation: z.number().int(),
  labels: labelMap.optional(),
  source: resourceSource,
  status: resourceStatus,
});
export type AuthoredView = z.infer<typeof authoredView>;
export const authoredList = z.object({ items: z.array(authoredView), continue: z.string().optional() });
export type AuthoredList = z.infer<typeof authoredList>;
