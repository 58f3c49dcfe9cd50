import { caProblem, isSelfSigned, isSignedBy, pathLenProblem, validityProblem } from "./ca-checks";
import { PkiError } from "./errors";
import type { WebCrypto, WebCryptoKey } from "./key-algorithms";
import { CERTIFICATE_TAG, type Certificate, certificatePem, decodePemBlocks, parseCertificateDer } from "./pem";
import * as x509 from "./x509";

// Real hierarchies are two to four deep; a cap keeps a hostile upload from costing unbounded work.
const MAX_CHAIN_LENGTH = 8;

export interface ValidateCaChainOptions {
  /** The user's upload: our signing CA's certificate first, then each issuer, ending with their root. */
  chainPem: string;
  /** The signing CA key meshplane generated and published a CSR for: a public CryptoKey or SPKI DER. */
  signingPublicKey: WebCryptoKey | ArrayBuffer | Uint8Array;
  now: Date;
}

export interface ValidatedCaChain {
  /** The self-signed root at the end of the chain: what goes into trust bundles. */
  rootPem: string;
  /** Every certificate of the chain, signing CA first and root last, as normalised PEM. */
  chainPems: string[];
  /** The earliest notAfter in the chain: when the chain stops being usable. */
  notAfter: Date;
}

/**
 * Validates a bring-your-own-PKI upload before meshplane signs intermediates with it: the first
 * certificate carries the signing CA key meshplane holds; every certificate is a CA with keyCertSign,
 * valid at `now`, and signed by the next one; the last is a self-signed root; and every pathLen
 * leaves room for the intermediates meshplane will issue below the first certificate (pathLen 0,
 * signing workloads) — so the first needs pathLen unset or ≥ 1, the one above it ≥ 2, and so on.
 * Throws a PkiError on the first problem, naming the certificate (`chainPem[i]`, subject) and what
 * is wrong; the chain is accepted whole or not at all.
 */
export async function validateCaChain(crypto: WebCrypto, options: ValidateCaChainOptions): Promise<ValidatedCaChain> {
  const chain = parseChain(options.chainPem);
  await checkKeyMatch(crypto, chain[0] as Certificate, options.signingPublicKey);
  for (const [index, cert] of chain.entries()) {
    const fail = (problem: string): never => {
      throw new PkiError(`chainPem[${index}]`, `(${cert.subject}) ${problem}`);
    };
    const problem = caProblem(cert) ?? validityProblem(cert, options.now) ?? pathLenProblem(cert, index + 1);
    if (problem !== undefined) fail(problem);
    if (index === 0 && cert.getExtension(x509.KeyUsagesExtension) === null) {
      // We sign with this certificate, so say so explicitly rather than rely on "absent allows all".
      fail("has no keyUsage; the signing CA needs keyUsage keyCertSign");
    }
    const next = chain[index + 1];
    if (next !== undefined && !(await isSignedBy(crypto, cert, next))) {
      fail(`is not signed by chainPem[${index + 1}] (${next.subject})`);
    }
    if (next === undefined && !(await isSelfSigned(crypto, cert))) {
      fail("is the last certificate but not a self-signed root; upload the chain up to and including the root");
    }
  }
  const root = chain[chain.length - 1] as Certificate;
  return {
    rootPem: certificatePem(root),
    chainPems: chain.map(certificatePem),
    notAfter: new Date(Math.min(...chain.map((cert) => cert.notAfter.getTime()))),
  };
}

function parseChain(chainPem: string): Certificate[] {
  const blocks = decodePemBlocks(chainPem, "chainPem");
  if (blocks.length === 0) throw new PkiError("chainPem", "holds no certificate");
  if (blocks.length > MAX_CHAIN_LENGTH) {
    throw new PkiError("chainPem", `holds ${blocks.length} certificates, at most ${MAX_CHAIN_LENGTH} are accepted`);
  }
  return blocks.map((block, index) => {
    const field = `chainPem[${index}]`;
    if (block.type !== CERTIFICATE_TAG) throw new PkiError(field, `is a ${block.type} block, expected CERTIFICATE`);
    return parseCertificateDer(block.der, field);
  });
}

async function checkKeyMatch(crypto: WebCrypto, first: Certificate, key: ValidateCaChainOptions["signingPublicKey"]): Promise<void> {
  const expected = new Uint8Array(key instanceof ArrayBuffer || ArrayBuffer.isView(key) ? key : await crypto.subtle.exportKey("spki", key));
  const actual = new Uint8Array(first.publicKey.rawData);
  const same = expected.length === actual.length && expected.every((byte, i) => byte === actual[i]);
  if (!same) {
    throw new PkiError("chainPem[0]", `(${first.subject}) does not carry the signing CA key meshplane generated; sign the CSR meshplane published`);
  }
}
