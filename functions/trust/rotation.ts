import { type StoredResource, resourceKey } from "@meshplane/core/base";
import { type TranslateInput, type TranslateOutput, certificateReports, inStep } from "@meshplane/core/translate";
import { type AuthorityDeps, newCaRecord, newRootAuthority, pendingSigningKey } from "./authority";
import { caBelongsTo, currentAuthority, rootKindOf, trustView } from "./ca-record";
import type { Logger } from "../shared/logger";
import type { CaRecord, Store } from "../store/index";

type VirtualMesh = StoredResource<"VirtualMesh">;

export interface TrustDeps {
  store: Store;
  authority: AuthorityDeps;
  log: Logger;
}

const DAY_MS = 86_400_000;

/**
 * A generated root is rotated when asked, or automatically once it would expire before an
 * intermediate issued now (ttlDays + rotateBeforeDays) runs out.
 */
function needsNewRoot(record: CaRecord, vm: VirtualMesh, now: Date): boolean {
  if (record.kind !== "generated" || record.phase !== "STABLE") return false;
  if (record.rotationRequested) return true;
  const options = vm.spec.mtlsConfig?.shared?.intermediateCertOptions;
  const horizon = ((options?.ttlDays ?? 365) + (options?.rotateBeforeDays ?? 30)) * DAY_MS;
  const root = record.authorities[0];
  return root !== undefined && Date.parse(root.rootNotAfter) - now.getTime() < horizon;
}

/**
 * A CA whose VirtualMesh now asks for the other kind of root, moved towards it without breaking
 * what members hold (docs/shared-trust.md, "Changing the root"); undefined when it need not move, or
 * cannot yet (a rotation under way finishes first).
 * - to your own root: the current root keeps signing, and a signing key waits for your CA's
 *   certificate; uploading a chain under your root then rotates in phases, as any new root does;
 * - to a generated root: a new root joins the current one (ADDING_ROOT) and the phases follow.
 * A CA that never had a root (a bring-your-own CA still waiting for its certificate) is replaced.
 */
async function switchRootKind(
  deps: TrustDeps,
  tenantId: string,
  record: CaRecord,
  vm: VirtualMesh,
  now: Date,
): Promise<Omit<CaRecord, "version"> | "replace" | undefined> {
  const kind = rootKindOf(vm);
  if (record.kind === kind || record.phase !== "STABLE") return undefined;
  const current = currentAuthority(record).signing;
  if (current === undefined) return "replace";
  const { version: _v, rotationRequested: _r, pending: _p, ...rest } = record;
  const base = { ...rest, authorities: [current], updatedAt: now.toISOString() };
  if (kind === "external") {
    const keyAlgorithm = vm.spec.mtlsConfig?.shared?.rootCertificateAuthority?.external?.keyAlgorithm ?? "ECDSA_P256";
    return { ...base, kind, keyAlgorithm, pending: await pendingSigningKey(deps.authority, tenantId, vm, keyAlgorithm) };
  }
  const successor = await newRootAuthority(deps.authority, tenantId, vm, now);
  return {
    ...base,
    kind,
    keyAlgorithm: vm.spec.mtlsConfig?.shared?.rootCertificateAuthority?.generated?.keyAlgorithm ?? "ECDSA_P256",
    phase: "ADDING_ROOT",
    authorities: [current, successor],
  };
}

/**
 * Makes the CAs match the VirtualMeshes (docs/shared-trust.md): one per VirtualMesh with shared trust, made
 * when missing (or when the VirtualMesh was re-created), moved in phases to the other kind of root
 * when the VirtualMesh switches between a generated root and its own, destroyed — sealed keys and
 * the CSRs it signed included — when its VirtualMesh is gone; a generated root due for rotation gets
 * its successor (phase ADDING_ROOT). The CA of a VirtualMesh that stops asking for shared trust is
 * kept, so asking again continues with the same root. Returns the CAs in use, by VirtualMesh name.
 */
export async function reconcileAuthorities(
  deps: TrustDeps,
  tenantId: string,
  virtualMeshes: readonly VirtualMesh[],
  now: Date,
): Promise<Map<string, CaRecord>> {
  const existing = new Map((await deps.store.cas.list(tenantId)).map((r) => [r.virtualMesh, r]));
  const out = new Map<string, CaRecord>();
  for (const vm of virtualMeshes) {
    if (vm.spec.mtlsConfig?.shared === undefined) continue;
    let record = existing.get(vm.metadata.name);
    const switched = record !== undefined && caBelongsTo(record, vm) ? await switchRootKind(deps, tenantId, record, vm, now) : undefined;
    if (record !== undefined && (!caBelongsTo(record, vm) || switched === "replace")) {
      await deps.store.cas.delete(tenantId, vm.metadata.name);
      deps.log.info("CA destroyed", { tenant: tenantId, virtualMesh: vm.metadata.name, reason: "replaced" });
      record = undefined;
    }
    if (record === undefined) {
      record = await deps.store.cas.put(tenantId, await newCaRecord(deps.authority, tenantId, vm, now), undefined);
      deps.log.info("CA created", { tenant: tenantId, virtualMesh: vm.metadata.name, kind: record.kind, issuer: trustView(record).issuer });
    } else if (switched !== undefined && switched !== "replace") {
      const from = record.kind;
      record = await deps.store.cas.put(tenantId, switched, record.version);
      deps.log.info("root kind switch started", { tenant: tenantId, virtualMesh: vm.metadata.name, from, to: record.kind, phase: record.phase });
    } else if (needsNewRoot(record, vm, now)) {
      const successor = await newRootAuthority(deps.authority, tenantId, vm, now);
      const { version, rotationRequested: _done, ...rest } = record;
      record = await deps.store.cas.put(
        tenantId,
        { ...rest, phase: "ADDING_ROOT", authorities: [...record.authorities, successor], updatedAt: now.toISOString() },
        version,
      );
      deps.log.info("root rotation started", { tenant: tenantId, virtualMesh: vm.metadata.name, newRoot: successor.rootFingerprint });
    }
    out.set(vm.metadata.name, record);
  }
  const kept = new Map(virtualMeshes.map((vm) => [vm.metadata.name, vm.metadata.uid]));
  for (const [name, record] of existing) {
    if (out.has(name) || kept.get(name) === record.uid) continue;
    await deps.store.cas.delete(tenantId, name);
    deps.log.info("CA destroyed", { tenant: tenantId, virtualMesh: name, reason: "VirtualMesh deleted" });
  }
  return out;
}

const NEXT_PHASE = { ADDING_ROOT: "SWITCHING", SWITCHING: "DROPPING", DROPPING: "STABLE" } as const;

/**
 * Moves root rotations on (docs/shared-trust.md#rotation): a phase ends when every member mesh of the VirtualMesh holds
 * what the phase asks for (its agent's report is in step), so no mesh is ever more than one phase
 * behind and every member's certificates keep verifying everywhere. Returns whether any CA moved.
 */
export async function advanceRotations(
  deps: TrustDeps,
  tenantId: string,
  input: TranslateInput,
  output: TranslateOutput,
  records: Map<string, CaRecord>,
  now: Date,
): Promise<boolean> {
  let moved = false;
  const reportOf = certificateReports(input.certificates);
  const clusterOf = new Map(input.meshes.map((m) => [m.metadata.name, m.spec.cluster]));
  const reportOn = (mesh: string) => {
    const cluster = clusterOf.get(mesh);
    return cluster === undefined ? undefined : reportOf(cluster, mesh);
  };
  for (const [name, record] of records) {
    if (record.phase === "STABLE") continue;
    const trust = trustView(record);
    const members = Object.entries(output.statuses[resourceKey("VirtualMesh", name)]?.meshes ?? {}).filter(([, m]) => m.trust !== undefined);
    if (members.length === 0 || !members.every(([mesh]) => inStep(reportOn(mesh), trust))) continue;
    const phase = NEXT_PHASE[record.phase];
    const { version, ...rest } = record;
    const authorities = phase === "STABLE" ? record.authorities.slice(-1) : record.authorities;
    records.set(name, await deps.store.cas.put(tenantId, { ...rest, phase, authorities, updatedAt: now.toISOString() }, version));
    deps.log.info("root rotation advanced", { tenant: tenantId, virtualMesh: name, from: record.phase, to: phase });
    moved = true;
  }
  return moved;
}
