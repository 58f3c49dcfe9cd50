import { basicConstraintsOf, subjectAltNamesOf } from "./certificate-info";
import { PkiError } from "./errors";
import { CA_KEY_USAGE, checkSpiffeId, subjectName } from "./issuance";
import { type AcceptedKeyAlgorithm, type WebCrypto, type WebCryptoKeyPair, classifyPublicKey, signingParams } from "./key-algorithms";
import { decodeSinglePem, toPem } from "./pem";
import * as x509 from "./x509";

const CSR_TAG = "CERTIFICATE REQUEST";
// Both spellings appear in the wild; OpenSSL still accepts the old "NEW" one.
const CSR_TAGS = [CSR_TAG, `NEW ${CSR_TAG}`];

export interface CreateCsrOptions {
  keyPair: WebCryptoKeyPair;
  /** The SPIFFE URI SAN to request; undefined for the bring-your-own-PKI signing CA, which has none. */
  spiffeId?: string;
  orgName?: string;
  commonName?: string;
  /** basicConstraints pathLen to request; undefined requests no limit (the signer decides). */
  pathLen?: number;
}

/**
 * A PKCS#10 CSR for a CA key, signed by `keyPair`. It always requests basicConstraints CA:TRUE and
 * CA key usages, so a user who signs the bring-your-own-PKI CSR with openssl's `-copy_extensions`
 * gets a usable CA; the agent's CSR also requests its SPIFFE URI SAN. The request must name
 * something — a SPIFFE ID, an O or a CN — else PkiError; a bad SPIFFE ID is PkiError `spiffeId`.
 */
export async function createCsr(crypto: WebCrypto, options: CreateCsrOptions): Promise<string> {
  const name = subjectName(options);
  if (options.spiffeId === undefined && name.length === 0) {
    throw new PkiError("spiffeId", "a CSR needs a SPIFFE ID, an orgName or a commonName");
  }
  const extensions: x509.Extension[] = [new x509.BasicConstraintsExtension(true, options.pathLen, true), new x509.KeyUsagesExtension(CA_KEY_USAGE, true)];
  if (options.spiffeId !== undefined) {
    checkSpiffeId(options.spiffeId, "spiffeId");
    // RFC 5280 §4.2.1.6: with an empty subject the SAN carries the identity and must be critical.
    extensions.push(new x509.SubjectAlternativeNameExtension([{ type: "url", value: options.spiffeId }], name.length === 0));
  }
  const csr = await x509.Pkcs10CertificateRequestGenerator.create(
    {
      name,
      keys: options.keyPair,
      signingAlgorithm: signingParams(options.keyPair.privateKey, "keyPair.privateKey"),
      extensions,
    },
    crypto,
  );
  return toPem(csr.rawData, CSR_TAG);
}

/** A CSR whose self-signature verified and whose key meshplane accepts; the rest is only what was asked. */
export interface ParsedCsr {
  /** SubjectPublicKeyInfo DER of the requested key. */
  publicKeySpki: ArrayBuffer;
  keyAlgorithm: AcceptedKeyAlgorithm;
  subject: string;
  /** The first O of the subject, the only subject field signIntermediate copies. */
  orgName: string | undefined;
  uriSans: string[];
  dnsSans: string[];
  /** Requested SANs of other kinds, as `type:value` (ip, email, ...). */
  otherSans: string[];
  requestedCa: boolean;
  /** Requested basicConstraints pathLen; undefined when none was requested. */
  requestedPathLen: number | undefined;
}

/**
 * Parses and checks a PEM PKCS#10 CSR: exactly one CSR block, a P-256 or RSA 2048/3072/4096 key,
 * and a self-signature that verifies with that key (so the requester holds the private key).
 * Each failure is a PkiError whose field is `csr`, `csr.publicKey` or `csr.signature`.
 */
export async function parseCsr(crypto: WebCrypto, pem: string): Promise<ParsedCsr> {
  const { csr, publicKey, subjectName: subject, extensions } = decodeCsr(pem);
  const keyAlgorithm = classifyPublicKey(publicKey, "csr.publicKey");
  let verified: boolean;
  try {
    verified = await csr.verify(crypto);
  } catch (error) {
    throw new PkiError("csr.signature", "cannot be checked", { cause: error });
  }
  if (!verified) throw new PkiError("csr.signature", "does not verify with the requested public key");
  const sans = subjectAltNamesOf({ extensions });
  const constraints = basicConstraintsOf({ extensions });
  return {
    publicKeySpki: publicKey.rawData,
    keyAlgorithm,
    subject: subject.toString(),
    orgName: subject.getField("O")[0],
    uriSans: sans.uri,
    dnsSans: sans.dns,
    otherSans: sans.other,
    requestedCa: constraints.ca,
    requestedPathLen: constraints.pathLen,
  };
}

interface DecodedCsr {
  csr: x509.Pkcs10CertificateRequest;
  publicKey: x509.PublicKey;
  subjectName: x509.Name;
  extensions: x509.Extension[];
}

function decodeCsr(pem: string): DecodedCsr {
  const block = decodeSinglePem(pem, "csr");
  if (!CSR_TAGS.includes(block.type)) throw new PkiError("csr", `is a ${block.type} block, expected CERTIFICATE REQUEST`);
  try {
    const csr = new x509.Pkcs10CertificateRequest(block.der);
    // The library decodes these lazily; read them here so a malformed part fails as input, not later.
    return { csr, publicKey: csr.publicKey, subjectName: csr.subjectName, extensions: csr.extensions };
  } catch (error) {
    throw new PkiError("csr", "is not a PKCS#10 certificate request", { cause: error });
  }
}
