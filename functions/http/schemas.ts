import { DOCUMENT_SCHEMAS, TOKEN_ROLES, dnsLabel, labelMap, routingApi } from "@meshplane/core/base";
import { z } from "zod";
import { DEFAULT_LIMIT, MAX_CONTINUE_CHARS, MAX_LIMIT } from "./pagination";

/** Request bodies, query and path parameters of the REST API; its response bodies and user resource specs live in core. */
export { applyResult, bootstrapView, clusterView, listOf, storedDocument, tenantView, tokenInfo } from "@meshplane/core/base";

/**
 * Path parameters. Each takes any one segment, as the router matches it: a name or id that matches
 * nothing stored is the store's 404, so a stricter schema here would turn today's 404 into a 400.
 */
export const nameParams = z.object({ name: z.string() });
export const idParams = z.object({ id: z.string() });

export const createTenantBody = z.strictObject({ name: dnsLabel });

const futureIso = z.iso
  .datetime({ offset: true, error: "must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z" })
  .meta({ description: "in the future, at most 3650 days ahead (checked against the server's clock)" });
export const createTokenBody = z
  .strictObject({
    name: dnsLabel,
    role: z.enum(TOKEN_ROLES),
    expiresAt: futureIso.optional(),
    ttlDays: z.number().int().min(1, "must be at least 1").max(3650, "must be at most 3650").optional(),
  })
  .refine((b) => !(b.expiresAt && b.ttlDays), { message: "set expiresAt or ttlDays, not both", path: ["ttlDays"] })
  .meta({ not: { required: ["expiresAt", "ttlDays"] } });
export const registerClusterBody = z.strictObject({ name: dnsLabel, labels: labelMap.optional() });

const LIMIT_RANGE = `must be an integer from 1 to ${MAX_LIMIT}`;

/** The query parameters every list takes. */
const pageParams = {
  limit: z.coerce
    .number<string>({ error: LIMIT_RANGE })
    .int(LIMIT_RANGE)
    .min(1, LIMIT_RANGE)
    .max(MAX_LIMIT, LIMIT_RANGE)
    .default(DEFAULT_LIMIT)
    .meta({ description: `at most this many items in the page (${DEFAULT_LIMIT} by default, at most ${MAX_LIMIT}); a page may hold fewer and still go on` }),
  continue: z
    .string()
    .max(MAX_CONTINUE_CHARS, "is not a continue token of this API; start the list again without continue")
    // base64url, as every token this API issues: a URL that carries one stays far below the 16 KiB header limit.
    .regex(/^[A-Za-z0-9_-]*$/, "is not a continue token of this API; start the list again without continue")
    .optional()
    .meta({ description: "`metadata.continue` of the previous page, with the same filters" }),
};

export const listQuery = z.strictObject(pageParams);
export const labelSelectorQuery = z.strictObject({ labelSelector: z.string().max(2048).optional(), ...pageParams });
/** `objects=false`: a cluster's sync state without its objects (what health views read; one item instead of the snapshot's body). */
export const snapshotQuery = z.strictObject({
  objects: z.enum(["true", "false"]).optional(),
});
export const discoveredQuery = z.strictObject({
  cluster: dnsLabel.optional(),
  namespace: dnsLabel.optional(),
  mesh: z.string().max(253).optional(),
  ...pageParams,
});

const MIN_DOCUMENTS = "must contain at least one document";
const MAX_DOCUMENTS = "at most 99 documents per request";
/** Parsed as a list of anything; each document is then checked against its kind's schema (functions/intent/documents.ts). */
export const applyBody = z.strictObject({ documents: z.array(z.unknown()).min(1, MIN_DOCUMENTS).max(99, MAX_DOCUMENTS) });
const documentsDoc = z
  .array(z.discriminatedUnion("kind", [DOCUMENT_SCHEMAS.VirtualMesh, DOCUMENT_SCHEMAS.TrafficPolicy, DOCUMENT_SCHEMAS.AccessPolicy]))
  .max(99, MAX_DOCUMENTS)
  .meta({ description: "each kind and name at most once" });
/** `applyBody` as the document describes it: every document one of the user kinds, each `(kind, name)` once. */
export const applyBodyDoc = z.strictObject({ documents: documentsDoc.min(1, MIN_DOCUMENTS) });

const MESHES_ROUTED = 64;
/** A plan's output API per mesh, by the Mesh's name (docs/api.md#plan-a-change); each name is checked against the tenant's meshes by the plan. */
const plannedRouting = z
  .record(z.string().min(1).max(253), routingApi)
  .refine((r) => Object.keys(r).length <= MESHES_ROUTED, `at most ${MESHES_ROUTED} meshes`)
  .meta({
    description:
      "the output API to plan each named mesh with (a Mesh's name, as GET /v1/meshes lists it), over its VirtualMesh's spec.routing.api and the default; nothing of it is stored (JSON bodies only)",
    maxProperties: MESHES_ROUTED,
  });
const NOTHING_TO_PLAN = "must contain at least one document, unless routing names a mesh";
const something = (b: { documents: unknown[]; routing?: object }) => b.documents.length > 0 || Object.keys(b.routing ?? {}).length > 0;
/**
 * `POST /v1/plan`'s body: `applyBody`, whose documents may be left out when `routing` asks for
 * another output API for some meshes (a migration's plan).
 */
export const planBody = z
  .strictObject({ documents: z.array(z.unknown()).max(99, MAX_DOCUMENTS).default([]), routing: plannedRouting.optional() })
  .refine(something, { message: NOTHING_TO_PLAN, path: ["documents"] });
/** `planBody` as the document describes it. */
export const planBodyDoc = z
  .strictObject({ documents: documentsDoc.min(1, MIN_DOCUMENTS).optional(), routing: plannedRouting.optional() })
  .meta({ anyOf: [{ required: ["documents"] }, { required: ["routing"], properties: { routing: { minProperties: 1 } } }] });
