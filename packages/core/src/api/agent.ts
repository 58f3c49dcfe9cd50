import { z } from "zod";
import { dnsLabel } from "./common";
import { discoveryResult } from "./discovery";

/** The agent protocol (docs/pipeline.md#the-agent-protocol): bodies the control plane accepts from agents, validated at the boundary. */

/** Longest lifetime (`exp` − `iat`) of an agent's self-signed JWT the control plane accepts. */
export const MAX_AGENT_TOKEN_SECONDS = 300;

/** An ES256 public key as a JWK; a private member (`d`) is refused so a key is never sent by mistake. */
export const publicEcJwk = z.strictObject({
  kty: z.literal("EC"),
  crv: z.literal("P-256"),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be a base64url P-256 coordinate"),
  y: z.string().regex(/^[A-Za-z0-9_-]{43}$/, "must be a base64url P-256 coordinate"),
  alg: z.literal("ES256").optional(),
  use: z.literal("sig").optional(),
  kid: z.string().max(128).optional(),
});
export type PublicEcJwk = z.infer<typeof publicEcJwk>;

export const registerRequest = z.strictObject({
  bootstrapToken: z.string().regex(/^mpb_[A-Za-z0-9_-]{43}$/, "must be a bootstrap token (mpb_…)"),
  publicKey: publicEcJwk,
  agentVersion: z.string().min(1).max(64),
});
export type RegisterRequest = z.infer<typeof registerRequest>;

/** A cluster's incarnation: a random id given when the cluster is created (UUID form). */
export const incarnationId = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, "must be a cluster incarnation (a UUID)");

/**
 * The answer to a registration: the cluster the token was for and its incarnation, which the agent
 * keeps and requires in every snapshot's audience. No incarnation: the cluster was created before
 * incarnations existed. Unknown fields are dropped, so a newer control plane can add some.
 */
export const registerResponse = z.object({
  tenant: dnsLabel,
  cluster: dnsLabel,
  incarnation: incarnationId.optional(),
});
export type RegisterResponse = z.infer<typeof registerResponse>;

/** What an agent reports about its cluster; `hash` is the agent's own and only advisory. */
export const discoveryReport = discoveryResult.extend({ hash: z.string().max(100) });
export type DiscoveryReport = z.infer<typeof discoveryReport>;

export const objectResult = z.strictObject({
  apiVersion: z.string().min(1).max(253),
  kind: z.string().min(1).max(63),
  namespace: z.string().max(253).optional(),
  name: z.string().min(1).max(253),
  state: z.enum(["applied", "failed", "pruned"]),
  error: z.string().max(4096).optional(),
});
export type ObjectResult = z.infer<typeof objectResult>;

const fingerprint = z.string().regex(/^sha256:[0-9a-f]{64}$/, "must be sha256:<64 hex digits>");

/**
 * The agent's view of one shared-trust mesh's `cacerts` (docs/pipeline.md#the-agent-protocol): what
 * its intermediate was issued by, which roots its trust bundle holds, when it expires; `failed`
 * with the reason when the agent could not write or issue it.
 */
export const certificateResult = z.strictObject({
  mesh: z.string().min(1).max(253),
  state: z.enum(["issued", "pending", "failed"]),
  /** Fingerprint of the certificate that signed the mesh's intermediate. */
  issuer: fingerprint.optional(),
  /** Fingerprints of the roots in the mesh's `root-cert.pem`, sorted. */
  trustBundle: z.array(fingerprint).max(16).optional(),
  /** The intermediate's expiry (ISO 8601). */
  notAfter: z.iso.datetime().optional(),
  error: z.string().max(4096).optional(),
});
export type CertificateResult = z.infer<typeof certificateResult>;

export const statusReport = z.strictObject({
  /** The generation the agent last applied (0 before the first). */
  generation: z.number().int().min(0),
  results: z.array(objectResult).max(20_000),
  /** Why nothing was applied (verification failed, control plane unreachable before, …). */
  error: z.string().max(4096).optional(),
  /** One entry per certificate directive of the applied snapshot. */
  certificates: z.array(certificateResult).max(1000).optional(),
});
export type StatusReport = z.infer<typeof statusReport>;

/**
 * A certificate directive as the agent reads it from a verified snapshot (the translator's
 * CertificateDirective). Unknown fields are dropped, so a newer control plane can add some without
 * breaking older agents; the agent still parses each one, because its stages write Secrets and
 * restart workloads from these fields.
 */
export const certificateDirective = z.object({
  mesh: z.string().min(1).max(253),
  virtualMesh: z.string().min(1),
  identity: z.string().regex(/^spiffe:\/\/[^/]+\/ns\/[^/]+\/sa\/[^/]+$/, "must be spiffe://<trust domain>/ns/<namespace>/sa/<service account>"),
  secretNamespace: dnsLabel,
  secretName: z.literal("cacerts"),
  ttlDays: z.number().positive(),
  rotateBeforeDays: z.number().min(0),
  keyAlgorithm: z.enum(["ECDSA_P256", "RSA_2048", "RSA_4096"]),
  autoRestartPods: z.boolean(),
  issuer: fingerprint,
  trustBundle: z.array(fingerprint).min(1),
});

/**
 * `POST /v1/agent/csr`: a PKCS#10 request for a mesh's intermediate CA, made with a key generated
 * in the cluster (docs/pipeline.md#the-agent-protocol). Signed only for the identity the cluster's
 * certificate directive names.
 */
export const csrRequest = z.strictObject({
  mesh: z.string().min(1).max(253),
  csr: z
    .string()
    .max(16_384)
    .regex(/^-----BEGIN CERTIFICATE REQUEST-----\r?\n[A-Za-z0-9+/=\r\n]+-----END CERTIFICATE REQUEST-----\r?\n?$/, "must be one PEM certificate request"),
});
export type CsrRequest = z.infer<typeof csrRequest>;

/** The signed intermediate: `certChain` is it and its issuers up to the root; `rootBundle` every root to trust. */
export const csrResponse = z.strictObject({
  certChain: z.string(),
  rootBundle: z.string(),
  issuer: fingerprint,
  notAfter: z.iso.datetime(),
});
export type CsrResponse = z.infer<typeof csrResponse>;

/** Claims of the JWT an agent signs for each call. */
export const agentClaims = z.object({
  iss: z.literal("agent"),
  sub: z.string().min(1),
  tenant: z.string().min(1),
  aud: z.string().min(1),
  iat: z.number().int(),
  exp: z.number().int(),
  jti: z.string().min(8).max(128),
  /**
   * The HTTP method the token is for (as DPoP's `htm`). A token for `GET` reads only, so its `jti`
   * need not be recorded; it can never be spent on a write. Absent: any method, `jti` recorded.
   */
  htm: z.enum(["GET", "POST"]).optional(),
});
export type AgentClaims = z.infer<typeof agentClaims>;
