import { createHash, randomBytes } from "node:crypto";

/** Credential kinds by prefix, so a leaked string says what it is (and secret scanners can find it). */
export const TOKEN_PREFIX = { tenant: "mpt_", operator: "mpo_", bootstrap: "mpb_" } as const;

/** A new random credential: prefix + 32 bytes base64url. Shown once, never stored. */
export function newSecret(prefix: string): string {
  return prefix + randomBytes(32).toString("base64url");
}

/** What we store and look up instead of a credential. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** Short random id for records that need one (token ids). */
export function newId(): string {
  return randomBytes(8).toString("hex");
}
