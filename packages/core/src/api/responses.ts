/**
 * What the REST API answers (docs/api.md): the response bodies the OpenAPI document describes, once,
 * for the control plane that sends them and the CLI and console that read them (their types are
 * derived from these, as views/health.ts's ClusterView). Request bodies stay with the routes.
 */
import { z } from "zod";
import { authoringGrant } from "../authoring/grant";
import { certificateResult } from "./agent";
import { labelMap } from "./common";
import { DOCUMENT_SCHEMAS, type UserKind, storedMetadata } from "./resource";
import { resourceStatus } from "./status";

/** The roles a tenant token has: admin manages tokens, editor changes policies, viewer reads. */
export const TOKEN_ROLES = ["admin", "editor", "viewer"] as const;

export const tenantView = z.object({ id: z.string(), revision: z.number().int(), translatedRevision: z.number().int(), createdAt: z.string() });

export const tokenInfo = z.object({
  id: z.string(),
  name: z.string(),
  role: z.enum(TOKEN_ROLES),
  createdAt: z.string(),
  createdBy: z
    .discriminatedUnion("kind", [z.object({ kind: z.literal("operator") }), z.object({ kind: z.literal("tenant"), tokenId: z.string() })])
    .optional()
    .meta({
      description:
        "who minted the token: the operator (a tenant's first admin token, or recovery), or the tenant's admin token `tokenId`; absent on tokens minted before it was recorded",
    }),
  expiresAt: z.string().optional(),
  lastUsedAt: z.string().optional(),
});

export const clusterView = z.object({
  name: z.string(),
  labels: labelMap.optional(),
  state: z.enum(["pending", "registered"]),
  createdAt: z.string(),
  bootstrapExpiresAt: z.string().optional(),
  lastSeenAt: z.string().optional(),
  appliedGeneration: z.number().int().optional(),
  /** What the cluster may author (docs/gitops.md#grants): the grant in effect. */
  authoring: authoringGrant
    .extend({
      default: z.literal(true).optional().meta({ description: "no tenant admin set a grant: the default, policies within the cluster itself" }),
      unregistered: z
        .array(z.string())
        .optional()
        .meta({ description: "in the answer of PUT: clusters the grant names that are not registered now (it covers them once they are)" }),
    })
    .optional(),
  /** Per shared-trust mesh, the `cacerts` its agent last reported: issuer, roots, expiry, or why it failed. */
  certificates: z.array(certificateResult).optional(),
  /** How the cluster's agent last fared reading its Prometheus (docs/observability.md#turning-it-off); absent when it never sent metrics. */
  metrics: z
    .object({ state: z.enum(["ok", "partial", "unavailable", "refused"]), message: z.string().optional(), at: z.string() })
    .optional()
    .meta({ description: "`refused`: the control plane refused the agent's last report (the message says why)" }),
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
export const listOf = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    metadata: z.object({
      continue: z.string().optional().meta({ description: "present when the list goes on: pass it as `?continue=` for the next page" }),
    }),
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
