import type { Membership } from "./membership";
import type { CertificateDirective } from "./types";

const DEFAULT_TTL_DAYS = 365;
const DEFAULT_ROTATE_BEFORE_DAYS = 30;

/**
 * The intermediate CA a shared-trust mesh needs (API.md §4), issued to istiod's SPIFFE identity and
 * written as `cacerts` in the Istio namespace. Defaults: 365 days, rotated 30 days before expiry,
 * the root's key algorithm (ECDSA P-256 when unset); pods are restarted only when asked, because a
 * restart is disruptive. Undefined when the VirtualMesh does not ask for shared trust.
 */
export function certificateDirective(member: Membership): CertificateDirective | undefined {
  const shared = member.virtualMesh.spec.mtlsConfig?.shared;
  if (shared === undefined) return undefined;
  const { mesh } = member;
  const istio = mesh.spec.istio;
  const trustDomain = istio?.trustDomain ?? "cluster.local";
  const serviceAccount = istio?.istiodServiceAccount ?? "istiod";
  return {
    mesh: mesh.metadata.name,
    virtualMesh: member.virtualMesh.metadata.name,
    identity: `spiffe://${trustDomain}/ns/${mesh.spec.namespace}/sa/${serviceAccount}`,
    secretNamespace: mesh.spec.namespace,
    secretName: "cacerts",
    ttlDays: shared.intermediateCertOptions?.ttlDays ?? DEFAULT_TTL_DAYS,
    rotateBeforeDays: shared.intermediateCertOptions?.rotateBeforeDays ?? DEFAULT_ROTATE_BEFORE_DAYS,
    keyAlgorithm: shared.rootCertificateAuthority?.generated.keyAlgorithm ?? "ECDSA_P256",
    autoRestartPods: member.virtualMesh.spec.mtlsConfig?.autoRestartPods ?? false,
  };
}
