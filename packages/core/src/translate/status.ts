import type { ResourceStatus, StoredResource } from "../api/index";
import { compareStrings } from "./compare";
import type { Membership, VirtualMesh } from "./membership";
import type { PolicyOutcome } from "./outcome";
import { type Reporter, resourceKey } from "./reporter";

type Policy = StoredResource<"TrafficPolicy"> | StoredResource<"AccessPolicy">;
type Destinations = NonNullable<ResourceStatus["destinations"]>;

function withErrors<T extends object>(base: T, errors: string[]): T & { errors?: string[] } {
  return errors.length > 0 ? { ...base, errors } : base;
}

/**
 * Status of a TrafficPolicy or AccessPolicy (API.md §7). Each selected destination is ACCEPTED or
 * INVALID with its own errors and (TrafficPolicy) acceptance number. The policy is INVALID when it
 * has policy-wide errors (then it is applied nowhere) or is INVALID on any destination, and ACCEPTED
 * otherwise — including when it selects nothing yet, since destinations may appear later. FAILED and
 * `clusters` come from agent reports, not from here.
 */
export function policyStatus(policy: Policy, outcome: PolicyOutcome, reporter: Reporter): ResourceStatus {
  const key = resourceKey(policy);
  const errors = reporter.errorsOf(key);
  const destinations: Destinations = {};
  let invalid = errors.length > 0;
  for (const name of [...outcome.destinations.keys()].sort(compareStrings)) {
    const { accepted, order } = outcome.destinations.get(name) as { accepted: boolean; order?: number };
    invalid ||= !accepted;
    const entry = { state: accepted ? ("ACCEPTED" as const) : ("INVALID" as const), ...(order === undefined ? {} : { acceptanceOrder: order }) };
    destinations[name] = withErrors(entry, reporter.destinationErrors(key, name));
  }
  const status: ResourceStatus = withErrors({ observedGeneration: policy.metadata.generation, state: invalid ? "INVALID" : "ACCEPTED" }, errors);
  status.destinations = destinations;
  if (outcome.workloads !== undefined) status.workloads = outcome.workloads;
  return status;
}

/**
 * Status of a VirtualMesh: each listed mesh ACCEPTED when it joined (errors, such as a missing
 * east-west gateway, can still be attached to it and then make it INVALID), INVALID when it could not
 * join; the VirtualMesh INVALID when any mesh is or it has errors of its own.
 */
export function virtualMeshStatus(vm: VirtualMesh, members: ReadonlyMap<string, Membership>, reporter: Reporter): ResourceStatus {
  const key = resourceKey(vm);
  const errors = reporter.errorsOf(key);
  const meshes: NonNullable<ResourceStatus["meshes"]> = {};
  let invalid = errors.length > 0;
  for (const name of [...new Set(vm.spec.meshes.map((m) => m.name))].sort(compareStrings)) {
    const meshErrors = reporter.meshErrors(key, name);
    const ok = members.get(name)?.virtualMesh === vm && meshErrors.length === 0;
    invalid ||= !ok;
    meshes[name] = withErrors({ state: ok ? ("ACCEPTED" as const) : ("INVALID" as const) }, meshErrors);
  }
  return { ...withErrors({ observedGeneration: vm.metadata.generation, state: invalid ? ("INVALID" as const) : ("ACCEPTED" as const) }, errors), meshes };
}
