import { MeshplaneError } from "../errors";

/**
 * A certificate, key or CSR meshplane refuses, or a PKI request it cannot honour. `field` names the
 * input at fault the way a request body would (`csr.uriSans`, `chainPem[1]`), so the API can report it
 * with a path; `cause` carries the library error when one was behind it. Bugs are not PkiErrors.
 */
export class PkiError extends MeshplaneError {
  constructor(
    readonly field: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${field}: ${message}`, options);
  }
}
