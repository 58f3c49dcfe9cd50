import { X509Certificate, createPrivateKey } from "node:crypto";

// Core's certificateInfo does not expose a certificate's public key, and the agent needs it twice:
// to see that the control plane certified the key we made, and which algorithm a held intermediate
// uses. Node's own X.509 parser answers both; core stays the judge of everything else.

/** The SubjectPublicKeyInfo (DER) of one PEM certificate; throws on unparsable PEM. */
export function publicKeyDer(certPem: string): Buffer {
  return new X509Certificate(certPem).publicKey.export({ type: "spki", format: "der" });
}

/**
 * The certificate's key algorithm in the directive's terms (`ECDSA_P256`, `RSA_2048`, `RSA_4096`),
 * or a description of another one (`EC secp384r1`, `RSA_3072`, `ed25519`) that will not equal any
 * of them. Throws on unparsable PEM.
 */
export function keyAlgorithmOf(certPem: string): string {
  const key = new X509Certificate(certPem).publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === "ec") return details.namedCurve === "prime256v1" ? "ECDSA_P256" : `EC ${details.namedCurve ?? "unknown curve"}`;
  if (key.asymmetricKeyType === "rsa") return `RSA_${details.modulusLength ?? 0}`;
  return key.asymmetricKeyType ?? "unknown";
}

/** Whether `keyPem` is the private key of the certificate; false for anything unparsable. */
export function keyMatchesCertificate(certPem: string, keyPem: string): boolean {
  try {
    return new X509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem));
  } catch {
    return false;
  }
}
