import { PkiError } from "./errors";
import * as x509 from "./x509";

export type Certificate = x509.X509Certificate;
export type PemBlock = { type: string; der: ArrayBuffer };

export const CERTIFICATE_TAG = "CERTIFICATE";
const BEGIN_LINE = /-----BEGIN [^-\r\n]*-----/g;

/**
 * PEM text for `der`: LF line endings and a final newline. The library's encoder stops right after
 * the END line, and openssl cannot read two such blocks once they are concatenated — which is exactly
 * how `cert-chain.pem` and trust bundles are made.
 */
export function toPem(der: ArrayBuffer, tag: string): string {
  return `${x509.PemConverter.encode(der, tag)}\n`;
}

/** PEM of a parsed certificate, ending in a newline (see toPem). */
export function certificatePem(cert: Certificate): string {
  return toPem(cert.rawData, CERTIFICATE_TAG);
}

/**
 * Every PEM block in `text`, in order. Text between blocks (the `subject=` lines some tools write) is
 * ignored; a block the decoder skips — bad base64, no END line — is counted against the BEGIN lines
 * and refused, because the library drops such blocks silently. Throws PkiError naming `field`.
 */
export function decodePemBlocks(text: string, field: string): PemBlock[] {
  let structs: ReturnType<typeof x509.PemConverter.decodeWithHeaders>;
  try {
    structs = x509.PemConverter.decodeWithHeaders(text);
  } catch (error) {
    throw new PkiError(field, "is not valid PEM", { cause: error });
  }
  const begun = text.match(BEGIN_LINE)?.length ?? 0;
  if (structs.length !== begun) {
    throw new PkiError(field, `has ${begun} PEM BEGIN lines but only ${structs.length} well-formed blocks`);
  }
  return structs.map((struct) => ({ type: struct.type, der: struct.rawData }));
}

/** The one PEM block in `text`, whatever its type; none or several is a PkiError naming `field`. */
export function decodeSinglePem(text: string, field: string): PemBlock {
  const blocks = decodePemBlocks(text, field);
  const [block] = blocks;
  if (blocks.length !== 1 || block === undefined) {
    throw new PkiError(field, `must hold exactly one PEM block, found ${blocks.length}`);
  }
  return block;
}

/**
 * Splits a bundle (a trust bundle, `cert-chain.pem`, an uploaded chain) into one normalised PEM
 * string per certificate, in order. Empty text gives []. A block that is not a certificate — a
 * private key pasted by mistake — or does not parse as X.509 is a PkiError with field `bundle[i]`.
 */
export function splitPemBundle(text: string): string[] {
  return decodePemBlocks(text, "bundle").map((block, index) => {
    const field = `bundle[${index}]`;
    if (block.type !== CERTIFICATE_TAG) throw new PkiError(field, `is a ${block.type} block, expected CERTIFICATE`);
    return certificatePem(parseCertificateDer(block.der, field));
  });
}

/** Parses one PEM certificate; malformed input is a PkiError naming `field`. */
export function parseCertificate(pem: string, field: string): Certificate {
  const block = decodeSinglePem(pem, field);
  if (block.type !== CERTIFICATE_TAG) throw new PkiError(field, `is a ${block.type} block, expected ${CERTIFICATE_TAG}`);
  return parseCertificateDer(block.der, field);
}

/** Parses one DER certificate; malformed input is a PkiError naming `field`. */
export function parseCertificateDer(der: ArrayBuffer, field: string): Certificate {
  try {
    return new x509.X509Certificate(der);
  } catch (error) {
    throw new PkiError(field, "is not an X.509 certificate", { cause: error });
  }
}
