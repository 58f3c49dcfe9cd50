import type { CsrSigner } from "./contract";
import type { CaSignerDeps } from "./signer";

/**
 * The CA signer called in-process (the local control plane and the tests), through the same
 * interface the API uses on AWS, where the signer is a function of its own. The signer, with X.509
 * and the CA key vault's use under it, is loaded by the first CSR.
 */
export function inProcessCsrSigner(deps: CaSignerDeps): CsrSigner {
  let signer: Promise<CsrSigner> | undefined;
  return {
    async sign(request) {
      signer ??= import("./signer").then((m) => m.createCsrSigner(deps));
      return (await signer).sign(request);
    },
  };
}
