import { PkiError } from "./errors";
import { caExtensions, randomSerialHex, subjectName, validity } from "./issuance";
import { type KeyAlgorithm, type WebCrypto, type WebCryptoKeyPair, signingParams } from "./key-algorithms";
import { generateKeyPair } from "./keys";
import { certificatePem } from "./pem";
import * as x509 from "./x509";

// Root → our intermediate (pathLen 0, Istio's CA) → workload certificate: one CA level below the
// root is all meshplane needs, and the limit keeps a stolen intermediate from minting sub-CAs.
const ROOT_PATH_LEN = 1;

export interface CreateRootCaOptions {
  keyAlgorithm: KeyAlgorithm;
  ttlDays: number;
  orgName: string;
  commonName: string;
  now: Date;
}

export interface RootCa {
  certPem: string;
  /** Extractable, so the control plane can store the private key encrypted (KMS or a local file). */
  keyPair: WebCryptoKeyPair;
}

/**
 * Creates a VirtualMesh's root CA: a fresh key pair and a self-signed certificate with subject
 * `O=<orgName>, CN=<commonName>`, basicConstraints CA:TRUE pathLen 1 (critical), keyUsage
 * keyCertSign|cRLSign|digitalSignature (critical), subjectKeyIdentifier, valid from now − 1 h to
 * now + ttlDays. Key and serial randomness come from `crypto` only. Empty names or a bad ttlDays
 * throw PkiError naming the option.
 */
export async function createRootCa(crypto: WebCrypto, options: CreateRootCaOptions): Promise<RootCa> {
  if (!options.orgName) throw new PkiError("orgName", "must not be empty");
  if (!options.commonName) throw new PkiError("commonName", "must not be empty");
  const { notBefore, notAfter } = validity(options.now, options.ttlDays);
  const keyPair = await generateKeyPair(crypto, options.keyAlgorithm);
  const publicKey = await x509.PublicKey.create(keyPair.publicKey, crypto);
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: randomSerialHex(crypto),
      name: subjectName(options),
      notBefore,
      notAfter,
      keys: keyPair,
      signingAlgorithm: signingParams(keyPair.privateKey, "keyPair.privateKey"),
      extensions: await caExtensions(crypto, publicKey, ROOT_PATH_LEN),
    },
    crypto,
  );
  return { certPem: certificatePem(cert), keyPair };
}
