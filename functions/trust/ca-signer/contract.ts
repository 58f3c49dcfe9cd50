/**
 * What the API may ask of the CA signer (functions/trust/ca-signer/signer.ts) and what it answers. The
 * API holds no way to open a CA key: on AWS it may only invoke the signer's function, locally it
 * calls the same code in-process through this interface (docs/shared-trust.md, "Who can sign").
 * Kept apart from the signer so the API loads neither X.509 nor KMS to speak to it.
 */
import { ValidationError, csrRequest, type CsrResponse } from "@meshplane/core/base";
import { z } from "zod";
import { ConflictError, ForbiddenError } from "../../shared/errors";

/** One agent's CSR, with the tenant and cluster the API authenticated it as. */
export const csrSigningRequest = z.strictObject({
  tenantId: z.string().min(1).max(128),
  cluster: z.string().min(1).max(253),
  ...csrRequest.shape,
});
export type CsrSigningRequest = z.infer<typeof csrSigningRequest>;

/** Issued, or refused with the status the API answers and (for a CSR it cannot sign) the field. */
export type CsrSigningAnswer =
  | { ok: true; certChain: string; rootBundle: string; issuer: string; notAfter: string }
  | { ok: false; status: 400 | 403 | 409; message: string; field?: string };

export interface CsrSigner {
  sign(request: CsrSigningRequest): Promise<CsrSigningAnswer>;
}

/**
 * Asks `signer` to sign one agent's CSR (the API's one call for `POST /v1/agent/csr`): the issued
 * chain, or the signer's refusal thrown as the API answers it — 403 (no directive for it), 409 (a
 * replay, or the CA moved on), 400 naming the field. The signer has logged the refusal.
 */
export async function requestIntermediate(signer: CsrSigner, request: CsrSigningRequest): Promise<CsrResponse> {
  const answer = await signer.sign(request);
  if (answer.ok) return { certChain: answer.certChain, rootBundle: answer.rootBundle, issuer: answer.issuer, notAfter: answer.notAfter };
  if (answer.status === 403) throw new ForbiddenError(answer.message);
  if (answer.status === 409) throw new ConflictError(answer.message);
  throw new ValidationError(`${answer.field ?? "csr"} refused`, [{ path: answer.field ?? "csr", message: answer.message }]);
}
