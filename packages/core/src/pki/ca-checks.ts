import { basicConstraintsOf, keyUsageOf } from "./certificate-info";
import type { WebCrypto } from "./key-algorithms";
import type { Certificate } from "./pem";
import * as x509 from "./x509";

// Each check returns what is wrong in words, or undefined; callers decide whether that becomes a
// PkiError naming the certificate (validation) or just `false` (verification).

/** Outside notBefore..notAfter (both inclusive, RFC 5280 §4.1.2.5) at `now`. */
export function validityProblem(cert: Certificate, now: Date): string | undefined {
  if (now < cert.notBefore) return `is not valid before ${cert.notBefore.toISOString()}`;
  if (now > cert.notAfter) return `expired at ${cert.notAfter.toISOString()}`;
  return undefined;
}

/** Not allowed to sign certificates: no basicConstraints CA:TRUE, or a keyUsage without keyCertSign. */
export function caProblem(cert: Certificate): string | undefined {
  if (!basicConstraintsOf(cert).ca) return "is not a CA (basicConstraints CA:TRUE missing)";
  const usage = keyUsageOf(cert);
  if (usage !== undefined && (usage & x509.KeyUsageFlags.keyCertSign) === 0) return "has a keyUsage without keyCertSign";
  return undefined;
}

/**
 * Its pathLen leaves no room for `casBelow` CA certificates under it (RFC 5280 §4.2.1.9; Go and
 * OpenSSL apply it to the root as well, so we do too).
 */
export function pathLenProblem(cert: Certificate, casBelow: number): string | undefined {
  const { pathLen } = basicConstraintsOf(cert);
  if (pathLen === undefined || pathLen >= casBelow) return undefined;
  return `has pathLen ${pathLen} but ${casBelow} CA certificate(s) must follow it`;
}

/**
 * Whether `issuer` issued `cert`: names match, the key identifiers match when both are present (as
 * OpenSSL requires), and the signature verifies with the issuer's key. Validity is not considered
 * here; the library would read the real clock otherwise.
 */
export async function isSignedBy(crypto: WebCrypto, cert: Certificate, issuer: Certificate): Promise<boolean> {
  if (cert.issuer !== issuer.subject) return false;
  const authorityKeyId = cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId;
  const subjectKeyId = issuer.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (authorityKeyId !== undefined && subjectKeyId !== undefined && authorityKeyId !== subjectKeyId) return false;
  try {
    return await cert.verify({ publicKey: issuer.publicKey, signatureOnly: true }, crypto);
  } catch {
    return false; // an issuer key of another algorithm cannot have made this signature
  }
}

/** Self-signed: issuer and subject names match and its own key verifies its signature. */
export async function isSelfSigned(crypto: WebCrypto, cert: Certificate): Promise<boolean> {
  return isSignedBy(crypto, cert, cert);
}
