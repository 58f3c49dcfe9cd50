import { type JWK, compactVerify, importJWK } from "jose";
import { MeshplaneError } from "../errors";
import { Canonicalizer } from "../translate/output/canonical";
import { type SnapshotPayload, SNAPSHOT_TYPE, snapshotPayload } from "./payload";

export type RejectReason = "malformed" | "unknown-key" | "bad-signature" | "wrong-audience" | "rollback" | "expired" | "not-yet-valid" | "hash-mismatch";

/** A snapshot the agent must not apply; `reason` is stable for metrics and status reports. */
export class SnapshotRejectedError extends MeshplaneError {
  constructor(
    readonly reason: RejectReason,
    message: string,
  ) {
    super(`snapshot rejected (${reason}): ${message}`);
  }
}

export interface VerifyOptions {
  /** Keys pinned at install; only these can sign a snapshot the agent accepts. */
  trustedKeys: readonly JWK[];
  /** The verifying agent's `snapshotAudience`: tenant, cluster and the cluster's incarnation. */
  audience: string;
  /** The last generation applied; a lower one is a rollback or a replay. */
  lastGeneration: number;
  now: Date;
  /** Tolerated clock skew for iat/exp, seconds. */
  skewSeconds?: number;
}

/**
 * Verifies a compact JWS snapshot: ES256 signature by a trusted key (by `kid`), the snapshot type,
 * the audience, generation ≥ lastGeneration, not expired, issued not in the future, and that `hash`
 * is the content hash of the objects and certificates it carries. Returns the payload or throws
 * SnapshotRejectedError — never a partially trusted result.
 */
export async function verifySnapshot(jws: string, options: VerifyOptions): Promise<SnapshotPayload> {
  const skew = options.skewSeconds ?? 60;
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(
      jws,
      async (header) => {
        const jwk = options.trustedKeys.find((k) => k.kid !== undefined && k.kid === header.kid);
        if (!jwk) throw new SnapshotRejectedError("unknown-key", `no trusted key has kid ${String(header.kid)}`);
        return importJWK(jwk, "ES256");
      },
      { algorithms: ["ES256"] },
    );
  } catch (error) {
    if (error instanceof SnapshotRejectedError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") throw new SnapshotRejectedError("bad-signature", "the signature does not verify");
    throw new SnapshotRejectedError("malformed", (error as Error).message);
  }
  if (verified.protectedHeader.typ !== SNAPSHOT_TYPE) throw new SnapshotRejectedError("malformed", `typ must be ${SNAPSHOT_TYPE}`);
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder().decode(verified.payload));
  } catch {
    throw new SnapshotRejectedError("malformed", "the payload is not JSON");
  }
  const parsed = snapshotPayload.safeParse(raw);
  if (!parsed.success) throw new SnapshotRejectedError("malformed", parsed.error.issues[0]?.message ?? "bad payload");
  const payload = parsed.data;
  const nowSeconds = Math.floor(options.now.getTime() / 1000);
  if (payload.aud !== options.audience) throw new SnapshotRejectedError("wrong-audience", `for ${payload.aud}, not ${options.audience}`);
  if (payload.generation < options.lastGeneration) {
    throw new SnapshotRejectedError("rollback", `generation ${payload.generation} is older than the applied ${options.lastGeneration}`);
  }
  if (payload.exp <= nowSeconds - skew) throw new SnapshotRejectedError("expired", `expired at ${new Date(payload.exp * 1000).toISOString()}`);
  if (payload.iat > nowSeconds + skew) throw new SnapshotRejectedError("not-yet-valid", "issued in the future");
  const hash = new Canonicalizer().contentHash(payload.objects, payload.certificates);
  if (hash !== payload.hash) throw new SnapshotRejectedError("hash-mismatch", "the objects do not match the signed hash");
  return payload;
}
