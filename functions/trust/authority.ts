import type { StoredResource } from "@meshplane/core/base";
import {
  type KeyAlgorithm,
  type WebCrypto,
  certificateInfo,
  createCsr,
  createRootCa,
  exportPrivateKeyPem,
  fingerprintSha256,
  generateKeyPair,
  importPrivateKeyPem,
  signIntermediate,
  splitPemBundle,
  validateCaChain,
} from "@meshplane/core/pki";
import type { CertificateDirective } from "@meshplane/core/translate";
import type { Authority, CaRecord } from "../store/certificate-authorities";
import { currentAuthority } from "./ca-record";
import type { KeyVault, SealContext } from "./key-vault";

type VirtualMesh = StoredResource<"VirtualMesh">;
type Shared = NonNullable<NonNullable<VirtualMesh["spec"]["mtlsConfig"]>["shared"]>;

export interface AuthorityDeps {
  vault: KeyVault;
  crypto: WebCrypto;
}

const DEFAULT_ROOT_TTL_DAYS = 3650;

/** PEM blocks one after another, each ending in a newline (what openssl and istiod read as a bundle). */
function pemBundle(pems: readonly string[]): string {
  return pems.map((p) => (p.endsWith("\n") ? p : `${p}\n`)).join("");
}
const DEFAULT_ORG = "meshplane";

/** What a sealed CA key is bound to: opening it for another tenant or VirtualMesh fails. */
export function sealContext(tenantId: string, virtualMesh: string, uid: string): SealContext {
  return { tenant: tenantId, virtualMesh, uid, purpose: "meshplane-ca" };
}

function generatedOptions(shared: Shared) {
  const generated = shared.rootCertificateAuthority?.generated;
  return {
    keyAlgorithm: generated?.keyAlgorithm ?? ("ECDSA_P256" as KeyAlgorithm),
    ttlDays: generated?.ttlDays ?? DEFAULT_ROOT_TTL_DAYS,
    orgName: generated?.orgName ?? DEFAULT_ORG,
  };
}

/** A new self-signed root for `vm`, its key sealed at once. */
export async function newRootAuthority(deps: AuthorityDeps, tenantId: string, vm: VirtualMesh, now: Date): Promise<Authority> {
  const shared = vm.spec.mtlsConfig?.shared as Shared;
  const { keyAlgorithm, ttlDays, orgName } = generatedOptions(shared);
  const root = await createRootCa(deps.crypto, { keyAlgorithm, ttlDays, orgName, commonName: `${vm.metadata.name} root CA`, now });
  const keyPem = await exportPrivateKeyPem(deps.crypto, root.keyPair.privateKey);
  const key = await deps.vault.seal(Buffer.from(keyPem), sealContext(tenantId, vm.metadata.name, vm.metadata.uid));
  const fingerprint = fingerprintSha256(root.certPem);
  const notAfter = certificateInfo(root.certPem).notAfter.toISOString();
  return {
    issuerPem: root.certPem,
    issuerFingerprint: fingerprint,
    chainPem: root.certPem,
    rootPem: root.certPem,
    rootFingerprint: fingerprint,
    notAfter,
    rootNotAfter: notAfter,
    key,
  };
}

/**
 * A new CA record for a shared-trust VirtualMesh: a generated root, or (bring your own PKI) a signing
 * key and its CSR, waiting for the user's CA to sign it.
 */
export async function newCaRecord(deps: AuthorityDeps, tenantId: string, vm: VirtualMesh, now: Date): Promise<Omit<CaRecord, "version">> {
  const shared = vm.spec.mtlsConfig?.shared as Shared;
  const base = { virtualMesh: vm.metadata.name, uid: vm.metadata.uid, phase: "STABLE" as const, updatedAt: now.toISOString() };
  const external = shared.rootCertificateAuthority?.external;
  if (external === undefined) {
    const authority = await newRootAuthority(deps, tenantId, vm, now);
    return { ...base, kind: "generated", keyAlgorithm: generatedOptions(shared).keyAlgorithm, state: "READY", authorities: [authority] };
  }
  const keyAlgorithm = external.keyAlgorithm ?? "ECDSA_P256";
  return {
    ...base,
    kind: "external",
    keyAlgorithm,
    state: "AWAITING_CERTIFICATE",
    authorities: [],
    pending: await pendingSigningKey(deps, tenantId, vm, keyAlgorithm),
  };
}

/** meshplane's signing key for a bring-your-own CA and the CSR the user signs (CA:TRUE, path length 1). */
export async function pendingSigningKey(
  deps: AuthorityDeps,
  tenantId: string,
  vm: VirtualMesh,
  keyAlgorithm: KeyAlgorithm,
): Promise<NonNullable<CaRecord["pending"]>> {
  const keyPair = await generateKeyPair(deps.crypto, keyAlgorithm);
  const csrPem = await createCsr(deps.crypto, { keyPair, orgName: DEFAULT_ORG, commonName: `${vm.metadata.name} signing CA`, pathLen: 1 });
  const keyPem = await exportPrivateKeyPem(deps.crypto, keyPair.privateKey);
  const key = await deps.vault.seal(Buffer.from(keyPem), sealContext(tenantId, vm.metadata.name, vm.metadata.uid));
  const publicKeySpki = Buffer.from(await deps.crypto.subtle.exportKey("spki", keyPair.publicKey)).toString("base64");
  return { csrPem, key, publicKeySpki };
}

/**
 * Validates an uploaded chain for the pending signing key (key match, CA, path length, validity —
 * PkiError naming what is wrong) and returns the authority it makes.
 */
export async function authorityFromUpload(
  deps: Pick<AuthorityDeps, "crypto">,
  pending: NonNullable<CaRecord["pending"]>,
  chainPem: string,
  now: Date,
): Promise<Authority> {
  const chain = await validateCaChain(deps.crypto, { chainPem, signingPublicKey: Buffer.from(pending.publicKeySpki, "base64"), now });
  const [issuerPem] = chain.chainPems as [string];
  const chainText = pemBundle(chain.chainPems);
  return {
    issuerPem,
    issuerFingerprint: fingerprintSha256(issuerPem),
    chainPem: chainText,
    rootPem: chain.rootPem,
    rootFingerprint: fingerprintSha256(chain.rootPem),
    notAfter: chain.notAfter.toISOString(),
    rootNotAfter: certificateInfo(chain.rootPem).notAfter.toISOString(),
    key: pending.key,
  };
}

/**
 * Signs a mesh's intermediate for exactly the directive's identity (the CSR must ask for that SPIFFE
 * ID and nothing else; PkiError otherwise), for `ttlDays` but never beyond the issuer's expiry.
 * Returns the chain (intermediate, then the issuer's chain) and the PEM bundle of roots to trust.
 */
export async function signMeshCsr(deps: AuthorityDeps, tenantId: string, record: CaRecord, directive: CertificateDirective, csrPem: string, now: Date) {
  const { signing, bundle } = currentAuthority(record);
  if (signing === undefined) throw new Error("no signing authority");
  const keyPem = Buffer.from(await deps.vault.open(signing.key, sealContext(tenantId, record.virtualMesh, record.uid))).toString("utf8");
  const privateKey = await importPrivateKeyPem(deps.crypto, keyPem);
  const { certPem } = await signIntermediate(deps.crypto, {
    csrPem,
    issuer: { certPem: signing.issuerPem, privateKey },
    spiffeId: directive.identity,
    ttlDays: directive.ttlDays,
    now,
    pathLen: 0,
  });
  const certChain = pemBundle([certPem, ...splitPemBundle(signing.chainPem)]);
  const rootBundle = pemBundle(bundle.map((a) => a.rootPem));
  return {
    certChain,
    rootBundle,
    issuer: signing.issuerFingerprint,
    notAfter: certificateInfo(certPem).notAfter.toISOString(),
    fingerprint: fingerprintSha256(certPem),
  };
}
