import { caProblem, isSignedBy, pathLenProblem, validityProblem } from "./ca-checks";
import { type ParsedCsr, parseCsr } from "./csr";
import { PkiError } from "./errors";
import { caExtensions, checkSpiffeId, randomSerialHex, subjectName, validity } from "./issuance";
import { type WebCrypto, type WebCryptoKey, signingParams } from "./key-algorithms";
import { type Certificate, certificatePem, parseCertificate } from "./pem";
import * as x509 from "./x509";

export interface SignIntermediateOptions {
  /** The agent's CSR (PEM). */
  csrPem: string;
  /** The CA that signs: a VirtualMesh's root, or its bring-your-own-PKI signing CA. */
  issuer: { certPem: string; privateKey: WebCryptoKey };
  /** The only URI SAN the CSR may request and the certificate will carry. */
  spiffeId: string;
  ttlDays: number;
  now: Date;
  /** pathLen of the issued CA; undefined means 0: Istio's CA signs workload certificates only. */
  pathLen?: number;
  /** CN of the issued certificate; undefined means none, the subject is then O alone. */
  commonName?: string;
}

/**
 * Signs the intermediate CA an agent asked for. The CSR must verify, use an accepted key, request
 * CA:TRUE with no pathLen above `pathLen`, and ask for exactly the URI SAN `spiffeId` and no other
 * SAN. From the CSR only the key and the subject's O are used (O falls back to the issuer's). The
 * certificate: CA:TRUE with `pathLen` and CA key usages (both critical), the SPIFFE URI SAN, subject
 * and authority key identifiers, valid from now − 1 h to min(now + ttlDays, issuer notAfter), signed
 * with ECDSA-SHA256 or RSA-SHA256 by the issuer's key. The issuer must be a valid CA at `now` with
 * room for one more CA below it. Every refusal is a PkiError naming the input at fault.
 */
export async function signIntermediate(crypto: WebCrypto, options: SignIntermediateOptions): Promise<{ certPem: string }> {
  const pathLen = options.pathLen ?? 0;
  checkSpiffeId(options.spiffeId, "spiffeId");
  const issuer = parseCertificate(options.issuer.certPem, "issuer.certPem");
  const issuerProblem = caProblem(issuer) ?? validityProblem(issuer, options.now) ?? pathLenProblem(issuer, pathLen + 1);
  if (issuerProblem !== undefined) throw new PkiError("issuer.certPem", `(${issuer.subject}) ${issuerProblem}`);
  const csr = await parseCsr(crypto, options.csrPem);
  checkRequest(csr, options.spiffeId, pathLen);

  const subject = subjectName({
    orgName: csr.orgName ?? issuer.subjectName.getField("O")[0],
    commonName: options.commonName,
  });
  checkSubject(subject, issuer);
  const { notBefore, notAfter } = validity(options.now, options.ttlDays, issuer.notAfter);
  const publicKey = new x509.PublicKey(csr.publicKeySpki);
  const cert = await x509.X509CertificateGenerator.create(
    {
      serialNumber: randomSerialHex(crypto),
      subject,
      issuer: issuer.subjectName,
      notBefore,
      notAfter,
      publicKey,
      signingKey: options.issuer.privateKey,
      signingAlgorithm: signingParams(options.issuer.privateKey, "issuer.privateKey"),
      extensions: await caExtensions(crypto, publicKey, pathLen, [
        new x509.SubjectAlternativeNameExtension([{ type: "url", value: options.spiffeId }]),
        await authorityKeyIdentifier(crypto, issuer),
      ]),
    },
    crypto,
  );
  // A certificate that does not chain to issuer.certPem would be written into a cluster and break
  // mTLS there; catching the key/cert mismatch here costs one verification.
  if (!(await isSignedBy(crypto, cert, issuer))) {
    throw new PkiError("issuer.privateKey", "does not belong to issuer.certPem");
  }
  return { certPem: certificatePem(cert) };
}

function checkRequest(csr: ParsedCsr, spiffeId: string, pathLen: number): void {
  if (!csr.requestedCa) throw new PkiError("csr.basicConstraints", "does not request a CA certificate (CA:TRUE)");
  if (csr.requestedPathLen !== undefined && csr.requestedPathLen > pathLen) {
    throw new PkiError("csr.basicConstraints", `requests pathLen ${csr.requestedPathLen}, at most ${pathLen} is allowed`);
  }
  if (csr.uriSans.length !== 1 || csr.uriSans[0] !== spiffeId) {
    throw new PkiError("csr.uriSans", `requests [${csr.uriSans.join(", ")}], only [${spiffeId}] is allowed`);
  }
  const others = [...csr.dnsSans.map((dns) => `dns:${dns}`), ...csr.otherSans];
  if (others.length > 0) {
    throw new PkiError("csr.subjectAltName", `requests [${others.join(", ")}], only the URI SAN ${spiffeId} is allowed`);
  }
}

// Certificates chain by name: an empty subject cannot be anyone's issuer (RFC 5280 §4.1.2.4), and
// one equal to the issuer's would look self-issued to path building.
function checkSubject(subject: x509.JsonName, issuer: Certificate): void {
  if (subject.length === 0) {
    throw new PkiError("commonName", "the CSR has no O and neither has the issuer; a commonName is needed");
  }
  if (new x509.Name(subject).toString() === issuer.subject) {
    throw new PkiError("commonName", `the subject would equal the issuer's (${issuer.subject}); pass a distinct commonName`);
  }
}

// The issuer's own subjectKeyIdentifier when it has one: a user's CA may derive it differently from
// us, and OpenSSL matches authority and subject key identifiers byte for byte.
async function authorityKeyIdentifier(crypto: WebCrypto, issuer: Certificate): Promise<x509.Extension> {
  const issuerKeyId = issuer.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId;
  if (issuerKeyId !== undefined) return new x509.AuthorityKeyIdentifierExtension(issuerKeyId);
  return x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey, false, crypto);
}
