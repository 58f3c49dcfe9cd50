/**
 * The CA signer: the only code that opens a VirtualMesh's CA key (docs/shared-trust.md, "Who can
 * sign"). It takes nothing on the caller's word but the tenant, the cluster and the CSR; everything
 * that decides what may be signed it reads from the store itself, in this order, before the key is
 * opened:
 *
 * 1. the directive for the CSR's mesh in the snapshot the control plane published for that cluster
 *    (S#HEAD and the body it names), whose signature it checks with the snapshot signing keys — the
 *    API can write the table but cannot sign a snapshot, so it cannot make up a directive;
 * 2. the VirtualMesh that directive is for: it must still exist, ask for shared trust and list the
 *    mesh (a directive outlives an edit until translation catches up);
 * 3. its CA, still the one (uid, issuer) the directive names;
 * 4. the CSR never presented to this CA before, claimed by one conditional write.
 */
import { createHash } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { PkiError, type StoredResource, snapshotAudience, verifySnapshot } from "@meshplane/core/base";
import type { CertificateDirective } from "@meshplane/core/translate";
import type { JWK } from "jose";
import { type AuthorityDeps, signMeshCsr } from "../authority";
import { trustView } from "../ca-record";
import { ConflictError, NotFoundError } from "../../shared/errors";
import { describeError, type Logger } from "../../shared/logger";
import type { Store } from "../../store/index";
import { type CsrSigner, type CsrSigningAnswer, type CsrSigningRequest, csrSigningRequest } from "./contract";

export interface CaSignerDeps {
  store: Store;
  authority: AuthorityDeps;
  /** The snapshot signing keys (the JWKS agents pin): a directive counts only in a snapshot they signed. */
  trustedKeys: () => Promise<JWK[]>;
  log: Logger;
  now: () => Date;
}

/** A request the signer will not sign, with the status the API answers. */
class Refusal extends Error {
  constructor(
    readonly status: 400 | 403 | 409,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The directive for `mesh` in the snapshot published for the cluster, its signature checked. */
async function publishedDirective(deps: CaSignerDeps, tenantId: string, cluster: string, mesh: string): Promise<CertificateDirective> {
  const head = await deps.store.snapshots.head(tenantId, cluster, true);
  if (head?.snapshot === undefined || head.deregistering) throw new Refusal(403, `cluster ${cluster} has no published snapshot`);
  const [body, trustedKeys] = await Promise.all([deps.store.snapshots.body(tenantId, cluster, head.snapshot), deps.trustedKeys()]);
  let certificates: Record<string, unknown>[];
  try {
    const payload = await verifySnapshot(gunzipSync(body).toString("utf8"), { trustedKeys, audience: snapshotAudience(tenantId, cluster, head.incarnation), lastGeneration: head.snapshot.generation, now: deps.now() });
    if (payload.generation !== head.snapshot.generation) throw new Error(`the body is generation ${payload.generation}, the head names ${head.snapshot.generation}`);
    certificates = payload.certificates;
  } catch (error) {
    deps.log.error("CSR refused: the published snapshot does not verify", { tenant: tenantId, cluster, mesh, ...describeError(error) });
    throw new Refusal(403, `the snapshot published for cluster ${cluster} does not verify; the control plane publishes a new one on its next translation`);
  }
  const directive = certificates.find((d) => d.mesh === mesh) as CertificateDirective | undefined;
  if (directive === undefined) throw new Refusal(403, `cluster ${cluster} has no certificate directive for mesh ${mesh}`);
  return directive;
}

/** The VirtualMesh of `directive`, as stored now: it must still share trust with `mesh`. */
async function currentVirtualMesh(store: Store, tenantId: string, directive: CertificateDirective): Promise<StoredResource<"VirtualMesh">> {
  const vm = (await store.resources.get(tenantId, "VirtualMesh", directive.virtualMesh).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new Refusal(403, `VirtualMesh ${directive.virtualMesh} no longer exists`);
    throw error;
  })) as StoredResource<"VirtualMesh">;
  if (vm.spec.mtlsConfig?.shared === undefined) throw new Refusal(403, `VirtualMesh ${directive.virtualMesh} no longer asks for shared trust`);
  if (!vm.spec.meshes.some((m) => m.name === directive.mesh)) throw new Refusal(403, `VirtualMesh ${directive.virtualMesh} no longer lists mesh ${directive.mesh}`);
  return vm;
}

async function signChecked(deps: CaSignerDeps, request: CsrSigningRequest): ReturnType<typeof signMeshCsr> {
  const { tenantId, cluster, mesh, csr } = request;
  const directive = await publishedDirective(deps, tenantId, cluster, mesh);
  const vm = await currentVirtualMesh(deps.store, tenantId, directive);
  const record = await deps.store.cas.get(tenantId, directive.virtualMesh);
  if (record === undefined || record.uid !== vm.metadata.uid || trustView(record).issuer !== directive.issuer) {
    throw new Refusal(409, `the CA of VirtualMesh ${directive.virtualMesh} has moved on; fetch the latest snapshot and retry`);
  }
  const csrHash = createHash("sha256").update(csr).digest("hex");
  await deps.store.cas.claimCsr(tenantId, record.virtualMesh, record.uid, csrHash, { cluster, mesh }, deps.now()).catch((error: unknown) => {
    if (error instanceof ConflictError) throw new Refusal(409, error.message);
    throw error;
  });
  try {
    return await signMeshCsr(deps.authority, tenantId, record, directive, csr, deps.now());
  } catch (error) {
    // Nothing was issued for it: a corrected request with the same CSR is not a replay.
    await deps.store.cas.releaseCsr(tenantId, record.virtualMesh, record.uid, csrHash);
    if (error instanceof PkiError) throw new Refusal(400, error.message, "csr");
    throw error;
  }
}

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
        const signed = await signChecked(deps, parsed.data);
        deps.log.info("intermediate CA issued", { tenant: tenantId, cluster, mesh, fingerprint: signed.fingerprint, notAfter: signed.notAfter, issuer: signed.issuer });
        return { ok: true, certChain: signed.certChain, rootBundle: signed.rootBundle, issuer: signed.issuer, notAfter: signed.notAfter };
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        deps.log.info("CSR refused", { tenant: tenantId, cluster, mesh, status: error.status, reason: error.message });
        return { ok: false, status: error.status, message: error.message, ...(error.field ? { field: error.field } : {}) };
      }
    },
  };
}
