import { DecryptCommand, GenerateDataKeyCommand, type KMSClient } from "@aws-sdk/client-kms";
import { canonicalJson } from "@meshplane/core/base";
import { type KeyVault, type SealContext, type SealedKey, gcmDecrypt, gcmEncrypt } from "./key-vault";

/**
 * KMS envelope encryption: a data key per sealed key from GenerateDataKey (AES_256) under the CA
 * key, with the encryption context (tenant, VirtualMesh) bound into both the KMS call and the
 * AES-GCM additional data. Sealing needs kms:GenerateDataKey, opening kms:Decrypt: the stack grants
 * each to the one function that needs it, with the context required in the key policy.
 */
export class KmsKeyVault implements KeyVault {
  constructor(private readonly deps: { kms: KMSClient; keyId: string }) {}

  async seal(plaintext: Uint8Array, context: SealContext): Promise<SealedKey> {
    const out = await this.deps.kms.send(new GenerateDataKeyCommand({ KeyId: this.deps.keyId, KeySpec: "AES_256", EncryptionContext: context }));
    if (!out.Plaintext || !out.CiphertextBlob) throw new Error("KMS returned no data key");
    const dataKey = Buffer.from(out.Plaintext);
    try {
      return {
        alg: "A256GCM",
        kek: out.KeyId ?? this.deps.keyId,
        wrappedKey: Buffer.from(out.CiphertextBlob).toString("base64"),
        ...gcmEncrypt(dataKey, plaintext, canonicalJson(context)),
      };
    } finally {
      dataKey.fill(0);
      out.Plaintext.fill(0);
    }
  }

  async open(sealed: SealedKey, context: SealContext): Promise<Uint8Array> {
    const out = await this.deps.kms.send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(sealed.wrappedKey, "base64"), KeyId: sealed.kek, EncryptionContext: context }),
    );
    if (!out.Plaintext) throw new Error("KMS returned no plaintext");
    const dataKey = Buffer.from(out.Plaintext);
    try {
      return gcmDecrypt(dataKey, sealed, canonicalJson(context));
    } finally {
      dataKey.fill(0);
      out.Plaintext.fill(0);
    }
  }
}
