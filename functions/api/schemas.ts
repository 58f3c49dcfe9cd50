import { DOCUMENT_SCHEMAS, type UserKind, certificateResult, dnsLabel, labelMap, resourceStatus, storedMetadata } from "@meshplane/core";
import { z } from "zod";
import { ROLES } from "../store/index";

/** Request and response bodies of the REST API (user resource specs live in core). */
export const createTenantBody = z.strictObject({ name: dnsLabel });
export const tenantView = z.object({ id: z.string(), revision: z.number().int(), translatedRevision: z.number().int(), createdAt: z.string() });

const futureIso = z.iso.datetime({ offset: true, error: "must be an RFC 3339 date-time such as 2027-01-01T00:00:00Z" });
export const createTokenBody = z
  .strictObject({
    name: dnsLabel,
    role: z.enum(ROLES),
    expiresAt: futureIso.optional(),
    ttlDays: z.number().int().min(1, "must be at least 1").max(3650, "must be at most 3650").optional(),
  })
  .refine((b) => !(b.expiresAt && b.ttlDays), { message: "set expiresAt or ttlDays, not both", path: ["ttlDays"] });
export const tokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  createdAt: z.string(),
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
});

/** A stored resource of `kind` as the API returns it. */
export function storedDocument(kind: UserKind) {
  return DOCUMENT_SCHEMAS[kind].omit({ status: true, metadata: true }).extend({ metadata: storedMetadata, status: resourceStatus });
}

export const listOf = (item: z.ZodType) => z.object({ items: z.array(item) });

export const labelSelectorQuery = z.strictObject({ labelSelector: z.string().max(2048).optional() });
export const discoveredQuery = z.strictObject({
  cluster: dnsLabel.optional(),
  namespace: dnsLabel.optional(),
  mesh: z.string().max(253).optional(),
});

export const applyBody = z.strictObject({ documents: z.array(z.unknown()).min(1, "must contain at least one document").max(99, "at most 99 documents per request") });
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
