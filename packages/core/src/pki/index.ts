export { type CertificateInfo, certificateInfo, fingerprintSha256 } from "./certificate-info";
export { type CreateCsrOptions, type ParsedCsr, createCsr, parseCsr } from "./csr";
export { PkiError } from "./errors";
export {
  type AcceptedKeyAlgorithm,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type WebCrypto,
  type WebCryptoKey,
  type WebCryptoKeyPair,
} from "./key-algorithms";
export { exportPrivateKeyPem, generateKeyPair, importPrivateKeyPem } from "./keys";
export { splitPemBundle } from "./pem";
export { type CreateRootCaOptions, type RootCa, createRootCa } from "./root-ca";
export { type SignIntermediateOptions, signIntermediate } from "./sign-intermediate";
export { type ValidateCaChainOptions, type ValidatedCaChain, validateCaChain } from "./validate-ca-chain";
export { type VerifyChainOptions, verifyChain } from "./verify-chain";
