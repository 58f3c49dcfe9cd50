/**
 * The CSR use case (`POST /v1/agent/csr`), run by the CA signer alone, the only code that opens a
 * VirtualMesh's CA key (docs/shared-trust.md, "Who can sign"). It takes nothing on the caller's word
 * but the tenant, the cluster and the CSR: directive → replay check → sign → record. What decides
 * what may be signed it reads from the store itself, in this order, before the key is opened:
 *
 * 1. the directive for the CSR's mesh in the snapshot the control plane published for that cluster
 *    (S#HEAD and the body it names), whose signature it checks with the snapshot signing keys — the
 *    API can write the table but cannot sign a snapshot, so it cannot make up a directive;
 * 2. the VirtualMesh that directive is for: it must still exist, ask for shared trust and list the
 *    mesh (a directive outlives an edit until translation catches up);
 * 3. its CA, still the one (uid, issuer) the directive names;
 * 4. the replay check: the CSR never presented to this CA before, claimed by one conditional write
 *    (so of two requests with one CSR exactly one gets on).
 *
 * Only then is the key opened and the CSR signed. The claim is the record: kept for the CA's lifetime,
 * so a second presentation is refused at step 4 (409); a CSR that fails to sign gives it back.
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
import type { CsrSigningRequest } from "./contract";

export interface CsrDeps {
  store: Store;
  authority: AuthorityDeps;
  /** The snapshot signing keys (the JWKS agents pin): a directive counts only in a snapshot they signed. */
  trustedKeys: () => Promise<JWK[]>;
  log: Logger;
  now: () => Date;
}

/** A request the signer will not sign, with the status the API answers and (for the CSR itself) the field. */
export class CsrRefusal extends Error {
  constructor(
    readonly status: 400 | 403 | 409,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** An issued intermediate: the chain, the roots to trust, its issuer, expiry and fingerprint. */
export type IssuedIntermediate = Awaited<ReturnType<typeof signMeshCsr>>;

/** The directive for `mesh` in the snapshot published for the cluster, its signature checked. */
async function publishedDirective(deps: CsrDeps, tenantId: string, cluster: string, mesh: string): Promise<CertificateDirective> {
  const head = await deps.store.snapshots.head(tenantId, cluster, true);
  if (head?.snapshot === undefined || head.deregistering) throw new CsrRefusal(403, `cluster ${cluster} has no published snapshot`);
  const [body, trustedKeys] = await Promise.all([deps.store.snapshots.body(tenantId, cluster, head.snapshot), deps.trustedKeys()]);
  let certificates: Record<string, unknown>[];
  try {
    const payload = await verifySnapshot(gunzipSync(body).toString("utf8"), {
      trustedKeys,
      audience: snapshotAudience(tenantId, cluster, head.incarnation),
      lastGeneration: head.snapshot.generation,
      now: deps.now(),
    });
    if (payload.generation !== head.snapshot.generation)
      throw new Error(`the body is generation ${payload.generation}, the head names ${head.snapshot.generation}`);
    certificates = payload.certificates;
  } catch (error) {
    deps.log.error("CSR refused: the published snapshot does not verify", { tenant: tenantId, cluster, mesh, ...describeError(error) });
    throw new CsrRefusal(403, `the snapshot published for cluster ${cluster} does not verify; the control plane publishes a new one on its next translation`);
  }
  const directive = certificates.find((d) => d.mesh === mesh) as CertificateDirective | undefined;
  if (directive === undefined) throw new CsrRefusal(403, `cluster ${cluster} has no certificate directive for mesh ${mesh}`);
  return directive;
}

/** The VirtualMesh of `directive`, as stored now: it must still share trust with `mesh`. */
async function currentVirtualMesh(store: Store, tenantId: string, directive: CertificateDirective): Promise<StoredResource<"VirtualMesh">> {
  const vm = (await store.resources.get(tenantId, "VirtualMesh", directive.virtualMesh).catch((error: unknown) => {
    if (error instanceof NotFoundError) throw new CsrRefusal(403, `VirtualMesh ${directive.virtualMesh} no longer exists`);
    throw error;
  })) as StoredResource<"VirtualMesh">;
  if (vm.spec.mtlsConfig?.shared === undefined) throw new CsrRefusal(403, `VirtualMesh ${directive.virtualMesh} no longer asks for shared trust`);
  if (!vm.spec.meshes.some((m) => m.name === directive.mesh))
    throw new CsrRefusal(403, `VirtualMesh ${directive.virtualMesh} no longer lists mesh ${directive.mesh}`);
  return vm;
}

/**
 * Signs one agent's CSR in the order above. Throws CsrRefusal for what may not be signed (nothing
 * issued; the key is opened only for a CSR that passed every check, and refused by signing itself
 * with 400 `csr`); other errors are failures of the signer or the store.
 */
export async function signCsr(deps: CsrDeps, request: CsrSigningRequest): Promise<IssuedIntermediate> {
  const { tenantId, cluster, mesh, csr } = request;
  const directive = await publishedDirective(deps, tenantId, cluster, mesh);
  const vm = await currentVirtualMesh(deps.store, tenantId, directive);
  const record = await deps.store.cas.get(tenantId, directive.virtualMesh);
  if (record === undefined || record.uid !== vm.metadata.uid || trustView(record).issuer !== directive.issuer) {
    throw new CsrRefusal(409, `the CA of VirtualMesh ${directive.virtualMesh} has moved on; fetch the latest snapshot and retry`);
  }
  const csrHash = createHash("sha256").update(csr).digest("hex");
  await deps.store.cas.claimCsr(tenantId, record.virtualMesh, record.uid, csrHash, { cluster, mesh }, deps.now()).catch((error: unknown) => {
    if (error instanceof ConflictError) throw new CsrRefusal(409, error.message);
    throw error;
  });
  try {
    return await signMeshCsr(deps.authority, tenantId, record, directive, csr, deps.now());
  } catch (error) {
    // Nothing was issued for it: a corrected request with the same CSR is not a replay.
    await deps.store.cas.releaseCsr(tenantId, record.virtualMesh, record.uid, csrHash);
    if (error instanceof PkiError) throw new CsrRefusal(400, error.message, "csr");
    throw error;
  }
}
