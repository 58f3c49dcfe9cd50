/**
 * Which VirtualMesh a mesh belongs to when several name it (docs/resources.md#virtualmesh: at most
 * one). Shared by the translator and by the views that explain its result
 * (packages/core/src/views), so both say the same.
 */
import { compareStrings } from "../compare";

/** What the claim order reads of a VirtualMesh: as stored, or as the API lists it. */
export interface Claimant {
  metadata: { name: string; createdAt?: string };
  status?: { meshes?: Record<string, { state: string }> } | undefined;
}

function wasAccepted(vm: Claimant, mesh: string): boolean {
  return vm.status?.meshes?.[mesh]?.state === "ACCEPTED";
}

/**
 * Claim order for one mesh: the VirtualMesh that already had it keeps it (so a later edit to an
 * older VirtualMesh cannot take a mesh away and swap its root of trust), then creation time, then name.
 */
export function claimOrder(mesh: string) {
  return (a: Claimant, b: Claimant): number =>
    Number(wasAccepted(b, mesh)) - Number(wasAccepted(a, mesh)) ||
    compareStrings(a.metadata.createdAt ?? "", b.metadata.createdAt ?? "") ||
    compareStrings(a.metadata.name, b.metadata.name);
}

/** The VirtualMesh that holds `mesh` among those that name it, or undefined when none does. */
export function claimantOf<T extends Claimant & { spec: { meshes?: unknown } }>(mesh: string, virtualMeshes: readonly T[]): T | undefined {
  const naming = virtualMeshes.filter((vm) => ((vm.spec.meshes as { name: string }[] | undefined) ?? []).some((m) => m.name === mesh));
  return [...naming].sort(claimOrder(mesh))[0];
}
