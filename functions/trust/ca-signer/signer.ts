/**
 * The CA signer as a function: on AWS its own Lambda with no route (the API invokes it), locally the
 * same code in-process. It takes its request as untrusted input, runs the CSR use case (csr.ts) and
 * answers with what was issued or the refusal, which it logs.
 */
import { type CsrSigner, type CsrSigningAnswer, csrSigningRequest } from "./contract";
import { type CsrDeps, CsrRefusal, signCsr } from "./csr";

/** What the signer reads: the store, the CA key vault, the snapshot signing keys, a log and the clock. */
export type CaSignerDeps = CsrDeps;

/** The signer; `sign` takes its request as untrusted input (on AWS it is the invoke's payload). */
export function createCsrSigner(deps: CaSignerDeps): CsrSigner & { sign(raw: unknown): Promise<CsrSigningAnswer> } {
  return {
    async sign(raw: unknown): Promise<CsrSigningAnswer> {
      const parsed = csrSigningRequest.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return { ok: false, status: 400, message: `invalid signing request: ${issue?.message ?? "malformed"}`, field: issue?.path.join(".") || "request" };
      }
      const { tenantId, cluster, mesh } = parsed.data;
      try {
        const signed = await signCsr(deps, parsed.data);
        deps.log.info("intermediate CA issued", {
          tenant: tenantId,
          cluster,
          mesh,
          fingerprint: signed.fingerprint,
          notAfter: signed.notAfter,
          issuer: signed.issuer,
        });
        return { ok: true, certChain: signed.certChain, rootBundle: signed.rootBundle, issuer: signed.issuer, notAfter: signed.notAfter };
      } catch (error) {
        if (!(error instanceof CsrRefusal)) throw error;
        deps.log.info("CSR refused", { tenant: tenantId, cluster, mesh, status: error.status, reason: error.message });
        return { ok: false, status: error.status, message: error.message, ...(error.field ? { field: error.field } : {}) };
      }
    },
  };
}
