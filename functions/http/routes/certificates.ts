import { PkiError, type StoredResource, ValidationError, csrRequest, csrResponse } from "@meshplane/core/base";
import { z } from "zod";
import { type CsrSigner, requestIntermediate } from "../../trust/ca-signer/contract";
import type { AuthorityDeps } from "../../trust/authority";
import { rootChangingField, trustView } from "../../trust/ca-record";
import type { TranslateQueue } from "../../queue/translate-queue";
import { ConflictError, ForbiddenError, NotFoundError } from "../../shared/errors";
import type { CaRecord } from "../../store/certificate-authorities";
import type { DocumentWrite, Principal, Store } from "../../store/index";
import { enqueueTranslate } from "../enqueue";
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

/** A PKI refusal is the client's mistake: 400 naming the field, nothing issued or stored. Other errors pass through as they are. */
async function asClientError<T>(field: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof PkiError)) throw error;
    throw new ValidationError(`${field} refused`, [{ path: field, message: error.message }]);
  }
}

/**
 * What makes and checks certificates (functions/trust/authority.ts), loaded by the first upload or CSR:
 * the X.509 library under it is about 250 KiB that no other request of the API needs.
 */
const loadAuthority = () => import("../../trust/authority");

/** Public facts of a CA: what a user may read (never a key). */
function describe(record: CaRecord) {
  const trust = trustView(record);
  return {
    virtualMesh: record.virtualMesh,
    kind: record.kind,
    state: record.state,
    phase: record.phase,
    ...(trust.issuer === undefined ? {} : { issuer: trust.issuer, rootFingerprint: trust.rootFingerprint, rootNotAfter: trust.rootNotAfter }),
    trustBundle: trust.trustBundle,
    roots: record.authorities.map((a) => ({ fingerprint: a.rootFingerprint, notAfter: a.rootNotAfter, certificate: a.rootPem })),
    ...(record.pending ? { awaitingCertificate: true } : {}),
    ...(record.rotationRequested ? { rotationRequested: true } : {}),
  };
}

async function caOf(store: Store, tenantId: string, name: string): Promise<CaRecord> {
  const vm = await store.resources.get(tenantId, "VirtualMesh", name);
  const record = await store.cas.get(tenantId, name);
  if (record === undefined || record.uid !== vm.metadata.uid) throw new NotFoundError(`VirtualMesh ${name} has no certificate authority (yet): it needs mtlsConfig.shared, and is made on its next translation`);
  return record;
}

/**
 * A root-changing edit of a VirtualMesh (switching between a generated root and your own, or
 * dropping shared trust) is the admin's: refused 403 naming the field for any other role. The write
 * is then made conditional on the version checked, so an edit in between cannot slip past (412).
 * docs/shared-trust.md, "Changing the root".
 */
export async function guardRootChange(store: Store, tenantId: string, principal: Principal, write: DocumentWrite): Promise<DocumentWrite> {
  if (write.doc.kind !== "VirtualMesh" || write.mode === "create" || (principal.kind === "tenant" && principal.role === "admin")) return write;
  const current = await store.resources.get(tenantId, "VirtualMesh", write.doc.metadata.name).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  if (current === undefined) return write;
  const field = rootChangingField(current as StoredResource<"VirtualMesh">, write.doc as unknown as Pick<StoredResource<"VirtualMesh">, "spec">);
  if (field !== undefined) throw new ForbiddenError(`${field}: this edit changes the root of VirtualMesh ${write.doc.metadata.name}'s CA and needs the admin role (it then moves to the new root in phases)`);
  return { ...write, ifMatch: write.ifMatch ?? current.metadata.resourceVersion };
}

const caInfo = z.object({ virtualMesh: z.string(), kind: z.string(), state: z.string(), phase: z.string(), trustBundle: z.array(z.string()) }).loose();

/**
 * The VirtualMesh CA endpoints (docs/shared-trust.md; docs/api.md#endpoints) and the agent's
 * `POST /v1/agent/csr` (docs/pipeline.md#the-agent-protocol).
 */
export function certificateRoutes(deps: CertificateDeps): Route[] {
  const { store } = deps;
  return [
    route({
      method: "get", path: "/v1/virtualmeshes/{name}/ca", tag: "virtualmeshes", access: "viewer",
      summary: "The VirtualMesh's certificate authority: roots, issuer, rotation phase (never a key)",
      params: nameParams,
      responses: { 200: { description: "the CA", schema: caInfo } },
      handler: async (c, { params }) => c.json(describe(await caOf(store, c.get("tenantId"), params.name))),
    }),
    route({
      method: "get", path: "/v1/virtualmeshes/{name}/ca/csr", tag: "virtualmeshes", access: "viewer",
      summary: "Bring your own PKI: the CSR of meshplane's signing CA, for your CA to sign",
      params: nameParams,
      responses: { 200: { description: "PEM certificate request", schema: z.object({ csr: z.string() }) } },
      handler: async (c, { params }) => {
        const record = await caOf(store, c.get("tenantId"), params.name);
        if (record.pending === undefined) throw new ConflictError(`VirtualMesh ${record.virtualMesh} has no CSR waiting: ${record.kind === "generated" ? "its root is generated by meshplane" : "its CA certificate is already uploaded"}`);
        return c.json({ csr: record.pending.csrPem });
      },
    }),
    route({
      method: "put", path: "/v1/virtualmeshes/{name}/ca/certificate", tag: "virtualmeshes", access: "admin",
      summary: "Bring your own PKI: upload the signed CA certificate and its chain up to your root",
      params: nameParams,
      body: z.strictObject({ certificateChain: z.string().min(1).max(65_536) }),
      responses: { 200: { description: "accepted; the CA can issue", schema: caInfo } },
      handler: async (c, { body, params }) => {
        const tenantId = c.get("tenantId");
        const record = await caOf(store, tenantId, params.name);
        if (record.pending === undefined) throw new ConflictError(`VirtualMesh ${record.virtualMesh} has no CSR waiting for a certificate`);
        const { authorityFromUpload } = await loadAuthority();
        const authority = await asClientError("certificateChain", () => authorityFromUpload(deps.authority, record.pending as NonNullable<CaRecord["pending"]>, body.certificateChain, deps.now()));
        const sameRoot = record.authorities.length === 0 || record.authorities.at(-1)?.rootFingerprint === authority.rootFingerprint;
        if (!sameRoot && record.phase !== "STABLE") throw new ConflictError(`a root rotation of VirtualMesh ${record.virtualMesh} is in progress (${record.phase}); upload again when it is STABLE`);
        const { pending: _used, version, ...rest } = record;
        const next = sameRoot ? { ...rest, state: "READY" as const, phase: "STABLE" as const, authorities: [authority] } : { ...rest, state: "READY" as const, phase: "ADDING_ROOT" as const, authorities: [...record.authorities, authority] };
        const saved = await store.cas.putAndBump(tenantId, { ...next, updatedAt: deps.now().toISOString() }, version);
        c.get("log").info("CA certificate uploaded", { tenant: tenantId, virtualMesh: record.virtualMesh, issuer: authority.issuerFingerprint, root: authority.rootFingerprint });
        await enqueueTranslate(deps.queue, c.get("log"), tenantId, saved.revision);
        return c.json(describe(saved.record));
      },
    }),
    route({
      method: "post", path: "/v1/virtualmeshes/{name}/ca/rotate", tag: "virtualmeshes", access: "admin",
      summary: "Start a root rotation (generated roots): new root trusted → intermediates re-issued → old root dropped",
      params: nameParams,
      responses: { 202: { description: "rotation requested", schema: caInfo } },
      handler: async (c, { params }) => {
        const tenantId = c.get("tenantId");
        const record = await caOf(store, tenantId, params.name);
        if (record.kind !== "generated") throw new ConflictError(`VirtualMesh ${record.virtualMesh} brings its own PKI: rotate by uploading a chain under the new root (PUT .../ca/certificate after a new CSR)`);
        if (record.phase !== "STABLE" || record.rotationRequested) throw new ConflictError(`a root rotation of VirtualMesh ${record.virtualMesh} is already in progress (${record.phase})`);
        const { version, ...rest } = record;
        const saved = await store.cas.putAndBump(tenantId, { ...rest, rotationRequested: true, updatedAt: deps.now().toISOString() }, version);
        await enqueueTranslate(deps.queue, c.get("log"), tenantId, saved.revision);
        return c.json(describe(saved.record), 202);
      },
    }),
    route({
      method: "post", path: "/v1/agent/csr", tag: "agent", access: "agent",
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
