import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { canonicalJson } from "@meshplane/core/base";
import type { SealedKey } from "../store/certificate-authorities";

export type { SealedKey };

/** Names what a sealed key belongs to; opening it under any other context fails. */
export type SealContext = Record<string, string>;

/** Seals and opens private keys. Only the function that signs CSRs may open. */
export interface KeyVault {
  seal(plaintext: Uint8Array, context: SealContext): Promise<SealedKey>;
  open(sealed: SealedKey, context: SealContext): Promise<Uint8Array>;
}

/** AES-256-GCM with `aad`; the pieces base64-encoded. */
export function gcmEncrypt(key: Uint8Array, plaintext: Uint8Array, aad: string): { iv: string; ciphertext: string; tag: string } {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad));
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv: iv.toString("base64"), ciphertext: ciphertext.toString("base64"), tag: cipher.getAuthTag().toString("base64") };
}

/** Inverse of gcmEncrypt; throws when the data, the key or the additional data was tampered with. */
export function gcmDecrypt(key: Uint8Array, box: { iv: string; ciphertext: string; tag: string }, aad: string): Buffer {
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(box.iv, "base64"));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(box.tag, "base64"));
  return Buffer.concat([decipher.update(Buffer.from(box.ciphertext, "base64")), decipher.final()]);
}

/**
 * Local mode's vault: a 256-bit key-encryption key in a file (mode 0600, created on first use under
 * `.meshplane/`) wraps a fresh data key per sealed key, so the layout matches KMS envelope encryption
 * and a copied table without the file opens nothing.
 */
export class LocalKeyVault implements KeyVault {
  private constructor(private readonly kek: Buffer) {}

  static open(path: string): LocalKeyVault {
    if (existsSync(path)) {
      const kek = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
      if (kek.length !== 32) throw new Error(`${path} does not hold a 256-bit key`);
      return new LocalKeyVault(kek);
    }
    mkdirSync(dirname(path), { recursive: true });
    const kek = randomBytes(32);
    writeFileSync(`${path}.tmp`, kek.toString("base64"), { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return new LocalKeyVault(kek);
  }

  async seal(plaintext: Uint8Array, context: SealContext): Promise<SealedKey> {
    const aad = canonicalJson(context);
    const dataKey = randomBytes(32);
    try {
      const wrapped = gcmEncrypt(this.kek, dataKey, aad);
      return { alg: "A256GCM", kek: "local", wrappedKey: JSON.stringify(wrapped), ...gcmEncrypt(dataKey, plaintext, aad) };
    } finally {
      dataKey.fill(0);
    }
  }

  async open(sealed: SealedKey, context: SealContext): Promise<Uint8Array> {
    if (sealed.kek !== "local") throw new Error(`sealed with key ${sealed.kek}, not the local key-encryption key`);
    const aad = canonicalJson(context);
    const dataKey = gcmDecrypt(this.kek, JSON.parse(sealed.wrappedKey) as { iv: string; ciphertext: string; tag: string }, aad);
    try {
      return gcmDecrypt(dataKey, sealed, aad);
    } finally {
      dataKey.fill(0);
    }
  }
}
