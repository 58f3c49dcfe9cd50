import type { Membership } from "./membership";
import type { VirtualMeshTrust } from "./trust";
import { trustDomainOf } from "./trust-domains";
import type { CertificateDirective } from "../types";

const DEFAULT_TTL_DAYS = 365;
const DEFAULT_ROTATE_BEFORE_DAYS = 30;

/**
 * The intermediate CA a shared-trust mesh needs (docs/shared-trust.md#the-pieces), issued to
 * istiod's SPIFFE identity and written as `cacerts` in the Istio namespace. Defaults: 365 days,
 * rotated 30 days before expiry, the root's key algorithm (ECDSA P-256 when unset); pods are
 * restarted only when asked, because a restart is disruptive. `issuer` and `trustBundle` come from
 * the VirtualMesh's CA. Undefined when the VirtualMesh does not ask for shared trust or its CA
 * cannot issue yet (not created, or a bring-your-own CA whose certificate is not uploaded): the
 * agent then keeps what it has.
 */
export function certificateDirective(member: Membership, trust: VirtualMeshTrust | undefined): CertificateDirective | undefined {
  const shared = member.virtualMesh.spec.mtlsConfig?.shared;
  if (shared === undefined || trust?.state !== "READY" || trust.issuer === undefined) return undefined;
  const { mesh } = member;
  const istio = mesh.spec.istio;
  const trustDomain = trustDomainOf(mesh);
  const serviceAccount = istio?.istiodServiceAccount ?? "istiod";
  return {
    mesh: mesh.metadata.name,
    virtualMesh: member.virtualMesh.metadata.name,
    identity: `spiffe://${trustDomain}/ns/${mesh.spec.namespace}/sa/${serviceAccount}`,
    secretNamespace: mesh.spec.namespace,
    secretName: "cacerts",
    ttlDays: shared.intermediateCertOptions?.ttlDays ?? DEFAULT_TTL_DAYS,
    rotateBeforeDays: shared.intermediateCertOptions?.rotateBeforeDays ?? DEFAULT_ROTATE_BEFORE_DAYS,
    keyAlgorithm: shared.rootCertificateAuthority?.generated?.keyAlgorithm ?? shared.rootCertificateAuthority?.external?.keyAlgorithm ?? "ECDSA_P256",
    autoRestartPods: member.virtualMesh.spec.mtlsConfig?.autoRestartPods ?? false,
    issuer: trust.issuer,
    trustBundle: trust.trustBundle,
  };
}
