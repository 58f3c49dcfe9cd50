import { createHash } from "node:crypto";
import { type Certificate, parseCertificate } from "./pem";
import * as x509 from "./x509";

/** What meshplane needs to know about a certificate to show it, rotate it and compare it. */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  /** Lower-case hex, as the library prints it (no leading zero byte). */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  isCa: boolean;
  /** basicConstraints pathLenConstraint; undefined when absent (no limit, or not a CA). */
  pathLen: number | undefined;
  uriSans: string[];
  dnsSans: string[];
  /** `sha256:<hex>` of the DER encoding, the form used everywhere a certificate is named. */
  fingerprint: string;
}

/**
 * `sha256:<hex>` of the DER of the one certificate in `certPem`. Hashing is deterministic, so it uses
 * Node's hash like the rest of core instead of async WebCrypto. Malformed PEM throws PkiError
 * (field `certPem`).
 */
export function fingerprintSha256(certPem: string): string {
  return fingerprintOf(parseCertificate(certPem, "certPem"));
}

/** Reads the fields in CertificateInfo from one PEM certificate; malformed PEM throws PkiError (`certPem`). */
export function certificateInfo(certPem: string): CertificateInfo {
  const cert = parseCertificate(certPem, "certPem");
  const constraints = basicConstraintsOf(cert);
  const sans = subjectAltNamesOf(cert);
  return {
    subject: cert.subject,
    issuer: cert.issuer,
    serialNumber: cert.serialNumber,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    isCa: constraints.ca,
    pathLen: constraints.pathLen,
    uriSans: sans.uri,
    dnsSans: sans.dns,
    fingerprint: fingerprintOf(cert),
  };
}

export function fingerprintOf(cert: Certificate): string {
  return `sha256:${createHash("sha256").update(new Uint8Array(cert.rawData)).digest("hex")}`;
}

/** basicConstraints of a certificate or CSR extension list; absent means not a CA. */
export function basicConstraintsOf(holder: { extensions: x509.Extension[] }): { ca: boolean; pathLen: number | undefined } {
  const found = holder.extensions.find((ext) => ext instanceof x509.BasicConstraintsExtension);
  return { ca: found?.ca ?? false, pathLen: found?.pathLength };
}

/** keyUsage flags, or undefined when the extension is absent (RFC 5280 then allows every use). */
export function keyUsageOf(holder: { extensions: x509.Extension[] }): number | undefined {
  return holder.extensions.find((ext) => ext instanceof x509.KeyUsagesExtension)?.usages;
}

/** Subject alternative names by kind; `other` holds the rest as `type:value` (ip, email, ...). */
export function subjectAltNamesOf(holder: { extensions: x509.Extension[] }): { uri: string[]; dns: string[]; other: string[] } {
  const sans = { uri: [] as string[], dns: [] as string[], other: [] as string[] };
  for (const ext of holder.extensions) {
    if (!(ext instanceof x509.SubjectAlternativeNameExtension)) continue;
    for (const name of ext.names.toJSON()) {
      if (name.type === "url") sans.uri.push(name.value);
      else if (name.type === "dns") sans.dns.push(name.value);
      else sans.other.push(`${name.type}:${name.value}`);
    }
  }
  return sans;
}
