import { createHash, createPublicKey } from "node:crypto";
import { GetPublicKeyCommand, type KMSClient, SignCommand } from "@aws-sdk/client-kms";
import { type JWK, calculateJwkThumbprint } from "jose";
import { derToJose } from "./der";
import { type Signer, b64url, signingInput } from "./signer";

interface PublicKey {
  keyId: string;
  jwk: JWK;
}

/**
 * ES256 signing with AWS KMS asymmetric keys (ECC_NIST_P256, SIGN_VERIFY). The private key never
 * leaves KMS: we send the SHA-256 digest of the signing input (MessageType DIGEST, so payloads of
 * any size work) and convert KMS's DER signature to JOSE form. `keyIds[0]` signs; every listed key is
 * published in the JWKS so rotation can pre-announce a new key and retire an old one.
 */
export class KmsSigner implements Signer {
  private publicKeys?: Promise<PublicKey[]>;

  constructor(private readonly deps: { kms: KMSClient; keyIds: readonly string[] }) {
    if (deps.keyIds.length === 0) throw new Error("KmsSigner needs at least one key id");
  }

  async sign(payload: Uint8Array, typ: string): Promise<string> {
    const [active] = await this.keys();
    const input = signingInput((active as PublicKey).jwk.kid as string, typ, payload);
    const out = await this.deps.kms.send(
      new SignCommand({
        KeyId: (active as PublicKey).keyId,
        Message: createHash("sha256").update(input).digest(),
        MessageType: "DIGEST",
        SigningAlgorithm: "ECDSA_SHA_256",
      }),
    );
    if (!out.Signature) throw new Error("KMS returned no signature");
    return `${input}.${b64url(derToJose(out.Signature))}`;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: (await this.keys()).map((k) => k.jwk) };
  }

  /** Public keys are fetched once per process: they change only with a deployment. */
  private keys(): Promise<PublicKey[]> {
    this.publicKeys ??= Promise.all(this.deps.keyIds.map((id) => this.fetchPublicKey(id))).catch((error: unknown) => {
      this.publicKeys = undefined;
      throw error;
    });
    return this.publicKeys;
  }

  private async fetchPublicKey(keyId: string): Promise<PublicKey> {
    const out = await this.deps.kms.send(new GetPublicKeyCommand({ KeyId: keyId }));
    if (out.KeySpec !== "ECC_NIST_P256" || !out.PublicKey) throw new Error(`KMS key ${keyId} is not an ECC_NIST_P256 signing key`);
    const pub = createPublicKey({ key: Buffer.from(out.PublicKey), format: "der", type: "spki" }).export({ format: "jwk" }) as JWK;
    const jwk = { kty: pub.kty, crv: pub.crv, x: pub.x, y: pub.y } as JWK;
    return { keyId, jwk: { ...jwk, kid: await calculateJwkThumbprint(jwk), alg: "ES256", use: "sig" } };
  }
}
