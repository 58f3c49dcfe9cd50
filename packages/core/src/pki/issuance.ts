import { PkiError } from "./errors";
import type { WebCrypto } from "./key-algorithms";
import * as x509 from "./x509";

// Every CA certificate meshplane issues may sign certificates and CRLs; digitalSignature as well, so
// the same key may also sign non-certificate data (OCSP responses), as common CA profiles allow.
export const CA_KEY_USAGE = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature;

// Clocks in clusters drift; a certificate valid from an hour ago works on a node that is behind.
const CLOCK_SKEW_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A 16-byte positive serial from `crypto` as hex: the top bit is cleared so the DER INTEGER needs no
 * sign byte. The library drops leading zero bytes itself, so the encoding stays minimal (Go refuses
 * a non-minimal one).
 */
export function randomSerialHex(crypto: WebCrypto): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * notBefore = now − 1 h and notAfter = now + ttlDays, both cut to whole seconds because X.509 time
 * has no fractions (so what we return is what the certificate says). `notAfterCap` (the issuer's
 * notAfter) caps notAfter: a certificate never outlives its issuer. ttlDays must be a positive number
 * (PkiError `ttlDays`).
 */
export function validity(now: Date, ttlDays: number, notAfterCap?: Date): { notBefore: Date; notAfter: Date } {
  if (!Number.isFinite(ttlDays) || ttlDays <= 0) throw new PkiError("ttlDays", `must be a positive number, got ${ttlDays}`);
  const notBefore = floorToSecond(now.getTime() - CLOCK_SKEW_MS);
  const wanted = floorToSecond(now.getTime() + ttlDays * DAY_MS);
  const notAfter = notAfterCap !== undefined && notAfterCap < wanted ? floorToSecond(notAfterCap.getTime()) : wanted;
  return { notBefore, notAfter };
}

function floorToSecond(ms: number): Date {
  return new Date(Math.floor(ms / 1000) * 1000);
}

/**
 * A subject of O then CN, each only when given, built from JSON so a comma or `=` in a tenant's
 * name stays data instead of being parsed as DN syntax. Empty strings count as absent.
 */
export function subjectName(parts: { orgName?: string | undefined; commonName?: string | undefined }): x509.JsonName {
  const name: x509.JsonName = [];
  if (parts.orgName) name.push({ O: [parts.orgName] });
  if (parts.commonName) name.push({ CN: [parts.commonName] });
  return name;
}

/**
 * A SPIFFE ID as Istio uses them: `spiffe://<trust domain>/<path>`, no query, fragment, port or
 * user info (SPIFFE ID spec §2). Refusals are PkiError naming `field`.
 */
export function checkSpiffeId(spiffeId: string, field: string): void {
  let url: URL;
  try {
    url = new URL(spiffeId);
  } catch (error) {
    throw new PkiError(field, `${JSON.stringify(spiffeId)} is not a URI`, { cause: error });
  }
  const clean = url.protocol === "spiffe:" && url.hostname !== "" && !url.port && !url.username && !url.password;
  if (!clean || url.search || url.hash || !spiffeId.startsWith("spiffe://")) {
    throw new PkiError(field, `${JSON.stringify(spiffeId)} is not a SPIFFE ID (spiffe://<trust-domain>/<path>)`);
  }
}

/**
 * The extensions of a CA certificate: basicConstraints CA:TRUE (critical) with `pathLen` (undefined
 * = no limit), keyUsage (critical), subjectKeyIdentifier, plus any `extra` ones (SAN, AKI).
 */
export async function caExtensions(
  crypto: WebCrypto,
  publicKey: x509.PublicKey,
  pathLen: number | undefined,
  extra: x509.Extension[] = [],
): Promise<x509.Extension[]> {
  return [
    new x509.BasicConstraintsExtension(true, pathLen, true),
    new x509.KeyUsagesExtension(CA_KEY_USAGE, true),
    await x509.SubjectKeyIdentifierExtension.create(publicKey, false, crypto),
    ...extra,
  ];
}
