import { csrRequest, csrResponse } from "@meshplane/core/base";
import { z } from "zod";
import type { TranslateQueue } from "../../queue/translate-queue";
import type { Store } from "../../store/index";
import type { AuthorityDeps } from "../../trust/authority";
import { describeCa, pendingCsr, requestRootRotation, uploadCaChain } from "../../trust/ca-admin";
import { type CsrSigner, requestIntermediate } from "../../trust/ca-signer/contract";
import { withLog } from "../context";
import { type Route, route } from "../route";
import { nameParams } from "../schemas";

export interface CertificateDeps {
  store: Store;
  queue: TranslateQueue;
  /** Checks uploaded CA chains; the API holds no CA key and cannot open one. */
  authority: Pick<AuthorityDeps, "crypto">;
  /** Signs mesh intermediates: the CA signer (functions/trust/ca-signer), which checks the request itself. */
  csrSigner: CsrSigner;
  now: () => Date;
}

const caInfo = z.object({ virtualMesh: z.string(), kind: z.string(), state: z.string(), phase: z.string(), trustBundle: z.array(z.string()) }).loose();

/**
 * The VirtualMesh CA endpoints (docs/shared-trust.md; docs/api.md#endpoints) over the CA's
 * administration (functions/trust/ca-admin.ts), and the agent's `POST /v1/agent/csr`
 * (docs/pipeline.md#the-agent-protocol) over the CA signer.
 */
export function certificateRoutes(deps: CertificateDeps): Route[] {
  return [
    route({
      method: "get",
      path: "/v1/virtualmeshes/{name}/ca",
      tag: "virtualmeshes",
      access: "viewer",
      summary: "The VirtualMesh's certificate authority: roots, issuer, rotation phase (never a key)",
      params: nameParams,
      responses: { 200: { description: "the CA", schema: caInfo } },
      handler: async (c, { params }) => c.json(await describeCa(deps, c.get("tenantId"), params.name)),
    }),
    route({
      method: "get",
      path: "/v1/virtualmeshes/{name}/ca/csr",
      tag: "virtualmeshes",
      access: "viewer",
      summary: "Bring your own PKI: the CSR of meshplane's signing CA, for your CA to sign",
      params: nameParams,
      responses: { 200: { description: "PEM certificate request", schema: z.object({ csr: z.string() }) } },
      handler: async (c, { params }) => c.json({ csr: await pendingCsr(deps, c.get("tenantId"), params.name) }),
    }),
    route({
      method: "put",
      path: "/v1/virtualmeshes/{name}/ca/certificate",
      tag: "virtualmeshes",
      access: "admin",
      summary: "Bring your own PKI: upload the signed CA certificate and its chain up to your root",
      params: nameParams,
      body: z.strictObject({ certificateChain: z.string().min(1).max(65_536) }),
      responses: { 200: { description: "accepted; the CA can issue", schema: caInfo } },
      handler: async (c, { body, params }) => c.json(await uploadCaChain(withLog(c, deps), c.get("tenantId"), params.name, body.certificateChain)),
    }),
    route({
      method: "post",
      path: "/v1/virtualmeshes/{name}/ca/rotate",
      tag: "virtualmeshes",
      access: "admin",
      summary: "Start a root rotation (generated roots): new root trusted → intermediates re-issued → old root dropped",
      params: nameParams,
      responses: { 202: { description: "rotation requested", schema: caInfo } },
      handler: async (c, { params }) => c.json(await requestRootRotation(withLog(c, deps), c.get("tenantId"), params.name), 202),
    }),
    route({
      method: "post",
      path: "/v1/agent/csr",
      tag: "agent",
      access: "agent",
      summary: "Sign a mesh's intermediate CA, only for the identity the cluster's certificate directive names",
      body: csrRequest,
      responses: { 200: { description: "the signed chain and the roots to trust", schema: csrResponse } },
      handler: async (c, { body }) => {
        const { tenantId, cluster } = c.get("agent");
        return c.json(await requestIntermediate(deps.csrSigner, { tenantId, cluster, mesh: body.mesh, csr: body.csr }));
      },
    }),
  ];
}
