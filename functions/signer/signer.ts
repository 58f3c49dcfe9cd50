import { createHash } from "node:crypto";
import type { JWK } from "jose";

/**
 * Signs snapshots. Two adapters: AWS KMS (the key never leaves KMS) and a local key file. Both
 * publish every key an agent may still meet in `jwks()`: the active one and the others kept for
 * rotation.
 */
export interface Signer {
  /** Compact JWS (ES256) of `payload` with the given `typ`, `kid` = the active key's. */
  sign(payload: Uint8Array, typ: string): Promise<string>;
  /** Public keys, active first, each with `kid`, `alg: ES256`, `use: sig`. */
  jwks(): Promise<{ keys: JWK[] }>;
}

export const b64url = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString("base64url");

/** The JWS signing input `<b64url(header)>.<b64url(payload)>` for an ES256 signature by `kid`. */
export function signingInput(kid: string, typ: string, payload: Uint8Array): string {
  return `${b64url(JSON.stringify({ alg: "ES256", kid, typ }))}.${b64url(payload)}`;
}

/** RFC 7638 thumbprint of an EC public key: the `kid` of our keys and of agents' keys. */
export function ecThumbprint(jwk: { crv?: string; x?: string; y?: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: "EC", x: jwk.x, y: jwk.y });
  return createHash("sha256").update(canonical).digest("base64url");
}
