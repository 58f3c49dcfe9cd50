/**
 * What a stored CA record says — whose root it is, which authority signs now, which roots to trust —
 * read without X.509. Apart from authority.ts, which makes and uses certificates, so that the API
 * loads the X.509 library only for the requests that need it (docs/aws.md, "Function bundles").
 */
import type { StoredResource } from "@meshplane/core/base";
import type { VirtualMeshTrust } from "@meshplane/core/translate";
import type { Authority, CaRecord } from "../store/certificate-authorities";

type VirtualMesh = StoredResource<"VirtualMesh">;

/** The kind of root a VirtualMesh asks for: made by meshplane, or the user's own (bring your own PKI). */
export function rootKindOf(vm: Pick<VirtualMesh, "spec">): CaRecord["kind"] {
  return vm.spec.mtlsConfig?.shared?.rootCertificateAuthority?.external === undefined ? "generated" : "external";
}

/**
 * Whether a stored CA is the one `vm` keeps: made for the same VirtualMesh (uid). A re-created
 * VirtualMesh gets a new CA; a change of root kind keeps the CA and moves to the new root in phases.
 */
export function caBelongsTo(record: CaRecord, vm: VirtualMesh): boolean {
  return record.uid === vm.metadata.uid;
}

/**
 * The field of an edit from `before` to `after` that would change the root members trust, or
 * undefined: switching between a generated root and your own, or dropping shared trust. Such edits
 * are the admin's (docs/shared-trust.md, "Changing the root").
 */
export function rootChangingField(before: Pick<VirtualMesh, "spec">, after: Pick<VirtualMesh, "spec">): string | undefined {
  if (before.spec.mtlsConfig?.shared === undefined) return undefined;
  if (after.spec.mtlsConfig?.shared === undefined) return after.spec.mtlsConfig === undefined ? "spec.mtlsConfig" : "spec.mtlsConfig.shared";
  return rootKindOf(before) === rootKindOf(after) ? undefined : "spec.mtlsConfig.shared.rootCertificateAuthority";
}

/** The authority that signs now, and the roots to trust now, per rotation phase (docs/shared-trust.md#rotation). */
export function currentAuthority(record: CaRecord): { signing: Authority | undefined; bundle: Authority[] } {
  const [first, second] = record.authorities;
  switch (record.phase) {
    case "ADDING_ROOT":
      return { signing: first, bundle: record.authorities };
    case "SWITCHING":
      return { signing: second, bundle: record.authorities };
    case "DROPPING":
      return { signing: second, bundle: second === undefined ? [] : [second] };
    default:
      return { signing: first, bundle: first === undefined ? [] : [first] };
  }
}

/** What translation needs of a CA (TranslateInput.trust). */
export function trustView(record: CaRecord): VirtualMeshTrust {
  const { signing, bundle } = currentAuthority(record);
  if (record.state !== "READY" || signing === undefined) return { uid: record.uid, state: "AWAITING_CERTIFICATE", trustBundle: [], phase: record.phase };
  return {
    uid: record.uid,
    state: "READY",
    issuer: signing.issuerFingerprint,
    rootFingerprint: signing.rootFingerprint,
    rootNotAfter: signing.rootNotAfter,
    trustBundle: [...new Set(bundle.map((a) => a.rootFingerprint))].sort(),
    phase: record.phase,
  };
}

/** The translator's view of the CAs (TranslateInput.trust), by VirtualMesh name. */
export function trustInput(records: ReadonlyMap<string, CaRecord>): Record<string, VirtualMeshTrust> {
  return Object.fromEntries([...records].map(([name, r]) => [name, trustView(r)]));
}

/**
 * The CAs a translate job would translate `virtualMeshes` with, read and not made: each stored one
 * whose VirtualMesh asks for shared trust and keeps it (same uid), by VirtualMesh name. One the job
 * would make or replace first is left out, so its meshes' trust reads as pending, as in the job's
 * first translation.
 */
export function keptAuthorities(virtualMeshes: readonly VirtualMesh[], records: readonly CaRecord[]): Map<string, CaRecord> {
  const byName = new Map(virtualMeshes.map((vm) => [vm.metadata.name, vm]));
  return new Map(
    records.flatMap((r) => {
      const vm = byName.get(r.virtualMesh);
      return vm?.spec.mtlsConfig?.shared !== undefined && caBelongsTo(r, vm) ? [[r.virtualMesh, r] as const] : [];
    }),
  );
}
