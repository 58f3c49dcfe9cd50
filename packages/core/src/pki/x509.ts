// @peculiar/x509 resolves its algorithm providers through tsyringe, which refuses to load unless
// Reflect.getMetadata exists. ES modules evaluate their imports in source order, so the polyfill
// runs before the library as long as every pki file imports the library through this one file.
// The polyfill only adds Reflect.* metadata functions; it does no I/O.
// oxlint-disable-next-line import/no-unassigned-import -- a polyfill is imported for its effect alone
import "reflect-metadata";

// Every pki file imports the library as `import * as x509 from "./x509"`, so it names only what is listed here.
export {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  ExtendedKeyUsage,
  ExtendedKeyUsageExtension,
  Extension,
  type JsonName,
  KeyUsageFlags,
  KeyUsagesExtension,
  Name,
  PemConverter,
  Pkcs10CertificateRequest,
  Pkcs10CertificateRequestGenerator,
  PublicKey,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from "@peculiar/x509";
