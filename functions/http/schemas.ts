import { DOCUMENT_SCHEMAS, type UserKind, certificateResult, dnsLabel, labelMap, resourceStatus, storedMetadata } from "@meshplane/core/base";
import { z } from "zod";
import { ROLES } from "../store/index";
import { DEFAULT_LIMIT, MAX_CONTINUE_CHARS, MAX_LIMIT } from "./pagination";

/** Request and response bodies of the REST API (user resource specs live in core). */
export const createTenantBody = z.strictObject({ name: dnsLabel });
export const tenantView = z.object({ id: z.string(), revision: z.number().int(), translatedRevision: z.number().int(), createdAt: z.string() });

const futureIso = z.iso
  .datetime({ offset: true, error: "must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z" })
  .meta({ description: "in the future, at most 3650 days ahead (checked against the server's clock)" });
export const createTokenBody = z
  .strictObject({
    name: dnsLabel,
    role: z.enum(ROLES),
    expiresAt: futureIso.optional(),
    ttlDays: z.number().int().min(1, "must be at least 1").max(3650, "must be at most 3650").optional(),
  })
  .refine((b) => !(b.expiresAt && b.ttlDays), { message: "set expiresAt or ttlDays, not both", path: ["ttlDays"] })
  .meta({ not: { required: ["expiresAt", "ttlDays"] } });
export const tokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: z.string(),
  createdBy: z
    .discriminatedUnion("kind", [z.object({ kind: z.literal("operator") }), z.object({ kind: z.literal("tenant"), tokenId: z.string() })])
    .optional()
    .meta({ description: "who minted the token: the operator (a tenant's first admin token, or recovery), or the tenant's admin token `tokenId`; absent on tokens minted before it was recorded" }),
  expiresAt: z.string().optional(),
  lastUsedAt: z.string().optional(),
});

export const registerClusterBody = z.strictObject({ name: dnsLabel, labels: labelMap.optional() });
export const clusterView = z.object({
  name: z.string(),
  labels: labelMap.optional(),
  state: z.enum(["pending", "registered"]),
  createdAt: z.string(),
  bootstrapExpiresAt: z.string().optional(),
  lastSeenAt: z.string().optional(),
  appliedGeneration: z.number().int().optional(),
  /** Per shared-trust mesh, the `cacerts` its agent last reported: issuer, roots, expiry, or why it failed. */
  certificates: z.array(certificateResult).optional(),
});
export const bootstrapView = z.object({
  cluster: clusterView,
  bootstrapToken: z.string(),
  expiresAt: z.string(),
  helmInstall: z.string(),
  /** The same install as chart values (what `meshplane cluster register --install` hands to helm in a 0600 file). */
  helmValues: z.object({
    controlPlane: z.object({ url: z.string(), allowInsecure: z.boolean().optional(), pushUrl: z.string().optional() }),
    cluster: z.object({ name: z.string() }),
    bootstrap: z.object({ token: z.string() }),
    trust: z.object({ jwks: z.object({ keys: z.array(z.unknown()) }) }),
  }),
});

/** A stored resource of `kind` as the API returns it. */
export function storedDocument(kind: UserKind) {
  return DOCUMENT_SCHEMAS[kind].omit({ status: true, metadata: true }).extend({ metadata: storedMetadata, status: resourceStatus });
}

/** One page of a list; `metadata.continue` is there when more follows. */
export const listOf = (item: z.ZodType) =>
  z.object({
    items: z.array(item),
    metadata: z.object({
      continue: z.string().optional().meta({ description: "present when the list goes on: pass it as `?continue=` for the next page" }),
    }),
  });

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
/** Parsed as a list of anything; each document is then checked against its kind's schema (routes/apply.ts). */
export const applyBody = z.strictObject({ documents: z.array(z.unknown()).min(1, MIN_DOCUMENTS).max(99, MAX_DOCUMENTS) });
/** `applyBody` as the document describes it: every document one of the user kinds, each `(kind, name)` once. */
export const applyBodyDoc = z.strictObject({
  documents: z
    .array(z.discriminatedUnion("kind", [DOCUMENT_SCHEMAS.VirtualMesh, DOCUMENT_SCHEMAS.TrafficPolicy, DOCUMENT_SCHEMAS.AccessPolicy]))
    .min(1, MIN_DOCUMENTS)
    .max(99, MAX_DOCUMENTS)
    .meta({ description: "each kind and name at most once" }),
});
export const applyResult = z.object({
  results: z.array(
    z.object({
      kind: z.string(),
      name: z.string(),
      action: z.enum(["created", "configured", "unchanged"]),
      generation: z.number().int(),
      resourceVersion: z.string(),
    }),
  ),
});
