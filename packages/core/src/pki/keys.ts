import type { webcrypto } from "node:crypto";
import { PrivateKeyInfo } from "@peculiar/asn1-pkcs8";
import { AsnConvert } from "@peculiar/asn1-schema";
import { PkiError } from "./errors";
import { type KeyAlgorithm, type WebCrypto, type WebCryptoKey, type WebCryptoKeyPair, keyParams } from "./key-algorithms";
import { decodeSinglePem, toPem } from "./pem";

// The two algorithm OIDs a PKCS#8 PrivateKeyInfo can carry for the keys we accept (RFC 8017, RFC 5480).
const OID_RSA_ENCRYPTION = "1.2.840.113549.1.1.1";
const OID_EC_PUBLIC_KEY = "1.2.840.10045.2.1";
const PRIVATE_KEY_TAG = "PRIVATE KEY";

/**
 * Generates an extractable signing key pair — extractable because the agent must write the private
 * key into Istio's `cacerts` secret and the control plane must store its CA key encrypted. All
 * randomness comes from `crypto` (pass `globalThis.crypto`). WebCrypto failures are thrown as they are.
 */
export async function generateKeyPair(crypto: WebCrypto, algorithm: KeyAlgorithm): Promise<WebCryptoKeyPair> {
  return crypto.subtle.generateKey(keyParams(algorithm), true, ["sign", "verify"]);
}

/**
 * Encodes a private key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the form Istio reads from
 * `ca-key.pem`. Throws PkiError (field `key`) for a public or non-extractable key.
 */
export async function exportPrivateKeyPem(crypto: WebCrypto, key: WebCryptoKey): Promise<string> {
  if (key.type !== "private") throw new PkiError("key", `is a ${key.type} key, a private key is required`);
  if (!key.extractable) throw new PkiError("key", "is not extractable, so it cannot be written out");
  return toPem(await crypto.subtle.exportKey("pkcs8", key), PRIVATE_KEY_TAG);
}

/**
 * Imports a PKCS#8 PEM private key for signing. `algorithm` undefined means: take EC or RSA from the
 * key's PKCS#8 algorithm OID (EC must be P-256; RSA 2048 or 4096 bits, the sizes we generate); given,
 * the key must be exactly that. The key comes back non-extractable: it is only ever used to sign, so
 * a later bug cannot serialise it. Every refusal is a PkiError with field `keyPem`.
 */
export async function importPrivateKeyPem(crypto: WebCrypto, pem: string, algorithm?: KeyAlgorithm): Promise<WebCryptoKey> {
  const der = decodePrivateKeyPem(pem);
  const family = algorithm === undefined ? familyOf(der) : algorithm === "ECDSA_P256" ? "EC" : "RSA";
  // importKey ignores modulusLength, so RSA_2048's parameters import an RSA key of any size.
  const params = keyParams(family === "EC" ? "ECDSA_P256" : "RSA_2048");
  let key: WebCryptoKey;
  try {
    key = await crypto.subtle.importKey("pkcs8", der, params, false, ["sign"]);
  } catch (error) {
    const expected = algorithm ?? (family === "EC" ? "ECDSA_P256" : "RSA");
    throw new PkiError("keyPem", `is not a valid ${expected} private key`, { cause: error });
  }
  if (family === "RSA") {
    const actual = `RSA_${(key.algorithm as webcrypto.RsaHashedKeyAlgorithm).modulusLength}`;
    const allowed: readonly string[] = algorithm === undefined ? ["RSA_2048", "RSA_4096"] : [algorithm];
    if (!allowed.includes(actual)) throw new PkiError("keyPem", `is an ${actual} key, expected ${allowed.join(" or ")}`);
  }
  return key;
}

function decodePrivateKeyPem(pem: string): ArrayBuffer {
  const block = decodeSinglePem(pem, "keyPem");
  if (block.type !== PRIVATE_KEY_TAG) {
    // SEC1 ("EC PRIVATE KEY") and PKCS#1 ("RSA PRIVATE KEY") are common; say how to convert them.
    throw new PkiError("keyPem", `is a ${block.type} block; expected PKCS#8 (convert with: openssl pkcs8 -topk8 -nocrypt)`);
  }
  return block.der;
}

function familyOf(der: ArrayBuffer): "EC" | "RSA" {
  let oid: string;
  try {
    oid = AsnConvert.parse(der, PrivateKeyInfo).privateKeyAlgorithm.algorithm;
  } catch (error) {
    throw new PkiError("keyPem", "is not a PKCS#8 PrivateKeyInfo", { cause: error });
  }
  if (oid === OID_EC_PUBLIC_KEY) return "EC";
  if (oid === OID_RSA_ENCRYPTION) return "RSA";
  throw new PkiError("keyPem", `has key algorithm ${oid}; use ECDSA P-256 or RSA`);
}
