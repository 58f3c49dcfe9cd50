import type { Mesh } from "../../api/index";
import { compareStrings } from "../compare";
import type { Membership, VirtualMesh } from "./membership";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";

const DEFAULT_TRUST_DOMAIN = "cluster.local";

/** A mesh's SPIFFE trust domain (istiod's default when its meshConfig names none). */
export function trustDomainOf(mesh: Mesh): string {
  return mesh.spec.istio?.trustDomain ?? DEFAULT_TRUST_DOMAIN;
}

/** Where a mesh's meshConfig lives: istiod mounts `istio`, or `istio-<revision>` for a revision. */
function meshConfigMap(mesh: Mesh): string {
  const revision = mesh.spec.istio?.revision;
  return `${mesh.spec.namespace}/${revision === undefined ? "istio" : `istio-${revision}`}`;
}

/**
 * The trust domains of the other members of `mesh`'s VirtualMesh that its sidecars would refuse:
 * Istio validates a client certificate's SPIFFE trust domain at the TLS handshake against the mesh's
 * own trust domain and its aliases (meshConfig `trustDomainAliases`, `caCertificates[].trustDomains`),
 * before any AuthorizationPolicy runs. Sorted; empty when every member is accepted.
 */
export function refusedTrustDomains(mesh: Mesh, members: readonly Mesh[]): string[] {
  const accepted = new Set([trustDomainOf(mesh), ...(mesh.spec.istio?.trustDomainAliases ?? [])]);
  return [...new Set(members.map(trustDomainOf))].filter((td) => !accepted.has(td)).sort(compareStrings);
}

/**
 * Why `mesh`'s sidecars refuse callers of the `refused` trust domains, and the exact setting that
 * fixes it. meshplane does not edit meshConfig itself: it belongs to whoever installed Istio, and
 * rewriting it behind their back would be undone by their next `istioctl install` or Helm upgrade.
 */
export function refusalText(mesh: Mesh, refused: readonly string[]): string {
  const own = [trustDomainOf(mesh), ...(mesh.spec.istio?.trustDomainAliases ?? [])];
  const aliases = [...(mesh.spec.istio?.trustDomainAliases ?? []), ...refused];
  const setFlags = aliases.map((td, i) => `--set meshConfig.trustDomainAliases[${i}]=${td}`).join(" ");
  return (
    `mesh ${mesh.metadata.name} accepts only trust domain(s) ${own.join(", ")}, so its sidecars refuse callers from ${refused.join(", ")} at the TLS handshake; ` +
    `add ${refused.join(", ")} to meshConfig.trustDomainAliases of that istiod (ConfigMap ${meshConfigMap(mesh)} in cluster ${mesh.spec.cluster}, key "mesh"; with istioctl: ${setFlags})`
  );
}

/**
 * Reports, per member mesh, the trust domains of fellow members it would refuse, with the exact
 * setting that fixes it (docs/shared-trust.md#trust-domains: the VirtualMesh is not ACCEPTED
 * for that mesh until then).
 * Returns whether any member refuses one.
 */
export function checkTrustDomains(members: ReadonlyMap<string, Membership>, reporter: Reporter): boolean {
  let any = false;
  const byVirtualMesh = new Map<VirtualMesh, Mesh[]>();
  for (const { mesh, virtualMesh } of members.values()) byVirtualMesh.set(virtualMesh, [...(byVirtualMesh.get(virtualMesh) ?? []), mesh]);
  for (const [vm, meshes] of byVirtualMesh) {
    for (const mesh of meshes) {
      const refused = refusedTrustDomains(mesh, meshes);
      if (refused.length === 0) continue;
      reporter.reportMesh(resourceKeyOf(vm), mesh.metadata.name, refusalText(mesh, refused));
      any = true;
    }
  }
  return any;
}
