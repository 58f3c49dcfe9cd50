import { type StoredResource, resourceKey } from "@meshplane/core/base";
import { type TranslateInput, type TranslateOutput, type VirtualMeshTrust, certificateReports, inStep } from "@meshplane/core/translate";
import { type AuthorityDeps, newCaRecord, newRootAuthority } from "../pki/authority";
import { caBelongsTo, trustView } from "../pki/ca-record";
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
 * Makes the CAs match the VirtualMeshes (API.md §4): one per VirtualMesh with shared trust, made
 * when missing (or when the VirtualMesh was re-created, or switched between a generated and an
 * external root), destroyed — sealed keys included — when its VirtualMesh is gone or no longer
 * asks for shared trust; a generated root due for rotation gets its successor (phase ADDING_ROOT).
 * Returns the CAs by VirtualMesh name.
 */
export async function reconcileAuthorities(deps: TrustDeps, tenantId: string, virtualMeshes: readonly VirtualMesh[], now: Date): Promise<Map<string, CaRecord>> {
  const existing = new Map((await deps.store.cas.list(tenantId)).map((r) => [r.virtualMesh, r]));
  const out = new Map<string, CaRecord>();
  for (const vm of virtualMeshes) {
    if (vm.spec.mtlsConfig?.shared === undefined) continue;
    let record = existing.get(vm.metadata.name);
    if (record !== undefined && !caBelongsTo(record, vm)) {
      await deps.store.cas.delete(tenantId, vm.metadata.name);
      deps.log.info("CA destroyed", { tenant: tenantId, virtualMesh: vm.metadata.name, reason: "replaced" });
      record = undefined;
    }
    if (record === undefined) {
      record = await deps.store.cas.put(tenantId, await newCaRecord(deps.authority, tenantId, vm, now), undefined);
      deps.log.info("CA created", { tenant: tenantId, virtualMesh: vm.metadata.name, kind: record.kind, issuer: trustView(record).issuer });
    } else if (needsNewRoot(record, vm, now)) {
      const successor = await newRootAuthority(deps.authority, tenantId, vm, now);
      const { version, rotationRequested: _done, ...rest } = record;
      record = await deps.store.cas.put(tenantId, { ...rest, phase: "ADDING_ROOT", authorities: [...record.authorities, successor], updatedAt: now.toISOString() }, version);
      deps.log.info("root rotation started", { tenant: tenantId, virtualMesh: vm.metadata.name, newRoot: successor.rootFingerprint });
    }
    out.set(vm.metadata.name, record);
  }
  const wanted = new Set(virtualMeshes.filter((vm) => vm.spec.mtlsConfig?.shared !== undefined).map((vm) => vm.metadata.name));
  for (const name of existing.keys()) {
    if (wanted.has(name)) continue;
    await deps.store.cas.delete(tenantId, name);
    deps.log.info("CA destroyed", { tenant: tenantId, virtualMesh: name, reason: "VirtualMesh deleted or without shared trust" });
  }
  return out;
}

/** The translator's view of the CAs (TranslateInput.trust). */
export function trustInput(records: ReadonlyMap<string, CaRecord>): Record<string, VirtualMeshTrust> {
  return Object.fromEntries([...records].map(([name, r]) => [name, trustView(r)]));
}

const NEXT_PHASE = { ADDING_ROOT: "SWITCHING", SWITCHING: "DROPPING", DROPPING: "STABLE" } as const;

/**
 * Moves root rotations on (API.md §4): a phase ends when every member mesh of the VirtualMesh holds
 * what the phase asks for (its agent's report is in step), so no mesh is ever more than one phase
 * behind and every member's certificates keep verifying everywhere. Returns whether any CA moved.
 */
export async function advanceRotations(deps: TrustDeps, tenantId: string, input: TranslateInput, output: TranslateOutput, records: Map<string, CaRecord>, now: Date): Promise<boolean> {
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
