import type { webcrypto } from "node:crypto";
import { PkiError } from "./errors";
import * as x509 from "./x509";

// Core has no DOM lib, so WebCrypto's types come from Node's declaration of the same interfaces.
// Callers pass `globalThis.crypto`, which Node types as exactly this.
export type WebCrypto = webcrypto.Crypto;
export type WebCryptoKey = webcrypto.CryptoKey;
export type WebCryptoKeyPair = webcrypto.CryptoKeyPair;

/** Key algorithms meshplane generates; all of them are accepted by Istio's CA. */
export const KEY_ALGORITHMS = ["ECDSA_P256", "RSA_2048", "RSA_4096"] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

/** Key algorithms meshplane accepts from others (CSRs, imported keys): ours plus RSA 3072. */
export type AcceptedKeyAlgorithm = KeyAlgorithm | "RSA_3072";

const RSA_BITS = { RSA_2048: 2048, RSA_3072: 3072, RSA_4096: 4096 } as const;
const RSA_EXPONENT = new Uint8Array([1, 0, 1]);

/** WebCrypto parameters to generate or import a key of `algorithm` for SHA-256 signatures. */
export function keyParams(algorithm: AcceptedKeyAlgorithm): webcrypto.EcKeyGenParams | webcrypto.RsaHashedKeyGenParams {
  if (algorithm === "ECDSA_P256") return { name: "ECDSA", namedCurve: "P-256" };
  return {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: RSA_BITS[algorithm],
    publicExponent: RSA_EXPONENT,
    hash: "SHA-256",
  };
}

/**
 * The signature parameters for a private key: ECDSA with SHA-256 or RSASSA-PKCS1-v1_5 with SHA-256,
 * the two Istio's CA accepts. Throws PkiError (field `field`) for any other key, so nothing signs with
 * a key we would refuse in a CSR.
 */
export function signingParams(key: WebCryptoKey, field: string): webcrypto.EcdsaParams | webcrypto.Algorithm {
  const algorithm = key.algorithm as webcrypto.EcKeyAlgorithm & webcrypto.RsaHashedKeyAlgorithm;
  if (key.type !== "private") throw new PkiError(field, `is a ${key.type} key, a private key is required`);
  if (algorithm.name === "ECDSA" && algorithm.namedCurve === "P-256") return { name: "ECDSA", hash: "SHA-256" };
  if (algorithm.name === "RSASSA-PKCS1-v1_5" && algorithm.hash.name === "SHA-256") {
    return { name: "RSASSA-PKCS1-v1_5" };
  }
  throw new PkiError(field, `${describeAlgorithm(algorithm)} keys cannot sign; use ECDSA P-256 or RSASSA-PKCS1-v1_5 with SHA-256`);
}

/**
 * Classifies a public key (SubjectPublicKeyInfo DER or the library's PublicKey): P-256 EC or RSA of
 * 2048, 3072 or 4096 bits. Anything else — other curves, Ed25519, short or odd-sized RSA — throws
 * PkiError naming `field`, because Istio and the proxies' TLS stacks are only promised these.
 */
export function classifyPublicKey(spki: ArrayBuffer | InstanceType<typeof x509.PublicKey>, field: string): AcceptedKeyAlgorithm {
  let publicKey: InstanceType<typeof x509.PublicKey>;
  try {
    publicKey = spki instanceof x509.PublicKey ? spki : new x509.PublicKey(spki);
  } catch (error) {
    throw new PkiError(field, "is not a SubjectPublicKeyInfo", { cause: error });
  }
  const algorithm = publicKey.algorithm as Partial<webcrypto.EcKeyAlgorithm & webcrypto.RsaKeyAlgorithm>;
  if (algorithm.name === "ECDSA" && algorithm.namedCurve === "P-256") return "ECDSA_P256";
  if (algorithm.name === "RSASSA-PKCS1-v1_5" && algorithm.modulusLength !== undefined) {
    const bits = algorithm.modulusLength;
    if (bits === 2048) return "RSA_2048";
    if (bits === 3072) return "RSA_3072";
    if (bits === 4096) return "RSA_4096";
    const why = bits < 2048 ? "is too short" : "is not a supported size";
    throw new PkiError(field, `RSA key of ${bits} bits ${why}; use 2048, 3072 or 4096 bits`);
  }
  throw new PkiError(field, `${describeAlgorithm(algorithm)} keys are not supported; use ECDSA P-256 or RSA 2048/3072/4096`);
}

function describeAlgorithm(algorithm: { name?: string; namedCurve?: string }): string {
  return [algorithm.name ?? "unknown", algorithm.namedCurve].filter(Boolean).join(" ");
}
