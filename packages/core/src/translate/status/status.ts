import type { ResourceStatus, StoredResource } from "../../api/index";
import { compareStrings } from "../compare";
import type { Membership, VirtualMesh } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import { meshTrustStatus, trustCarries, trustOf } from "../virtual-mesh/trust";
import type { DestinationOutcome, PolicyOutcome } from "./outcome";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "./reporter";

type Policy = StoredResource<"TrafficPolicy"> | StoredResource<"AccessPolicy">;
type Destinations = NonNullable<ResourceStatus["destinations"]>;

const SEVERITY = { ACCEPTED: 0, PENDING: 1, FAILED: 2, INVALID: 3 } as const;
type State = keyof typeof SEVERITY;

function worst(states: readonly State[]): State {
  return states.reduce<State>((a, b) => (SEVERITY[b] > SEVERITY[a] ? b : a), "ACCEPTED");
}

function withErrors<T extends object>(base: T, errors: string[]): T & { errors?: string[] } {
  return errors.length > 0 ? { ...base, errors } : base;
}

/**
 * Status of a TrafficPolicy or AccessPolicy (docs/resources.md#status). Each selected destination
 * is ACCEPTED or INVALID with its own errors and (TrafficPolicy) acceptance number — or, for a
 * TrafficPolicy whose calls there a VirtualMesh cannot carry yet, PENDING or FAILED as that
 * VirtualMesh is (docs/translation.md). The policy takes its worst destination's state (INVALID >
 * FAILED > PENDING > ACCEPTED), INVALID with policy-wide errors (then it is applied nowhere);
 * ACCEPTED when it selects nothing yet, since destinations may appear later. `clusters`, and FAILED
 * for an output a cluster rejected, come from agent reports, not from here.
 */
export function policyStatus(policy: Policy, outcome: PolicyOutcome, reporter: Reporter): ResourceStatus {
  const key = resourceKeyOf(policy);
  const errors = reporter.errorsOf(key);
  const destinations: Destinations = {};
  const states: State[] = errors.length > 0 ? ["INVALID"] : [];
  for (const name of [...outcome.destinations.keys()].sort(compareStrings)) {
    const { accepted, order, state: held } = outcome.destinations.get(name) as DestinationOutcome;
    const state: State = accepted ? "ACCEPTED" : (held ?? "INVALID");
    states.push(state);
    const entry = { state, ...(order === undefined ? {} : { acceptanceOrder: order }) };
    destinations[name] = withErrors(entry, reporter.destinationErrors(key, name));
  }
  const status: ResourceStatus = withErrors({ observedGeneration: policy.metadata.generation, state: worst(states) }, errors);
  status.destinations = destinations;
  if (outcome.workloads !== undefined) status.workloads = outcome.workloads;
  return status;
}

/**
 * Status of a VirtualMesh (docs/resources.md#virtualmesh and #status). Each listed mesh is INVALID
 * when it could not join or has errors (a missing east-west gateway, a refused trust domain); with
 * shared trust, PENDING until its agent holds an intermediate from the VirtualMesh's CA and FAILED
 * when the agent says it cannot — ACCEPTED only when trust and federation can work. The VirtualMesh
 * takes its worst mesh's state (INVALID > FAILED > PENDING > ACCEPTED), INVALID with errors of its
 * own.
 */
export function virtualMeshStatus(vm: VirtualMesh, members: ReadonlyMap<string, Membership>, reporter: Reporter, model: Model): ResourceStatus {
  const key = resourceKeyOf(vm);
  const errors = reporter.errorsOf(key);
  const meshes: NonNullable<ResourceStatus["meshes"]> = {};
  const states: State[] = errors.length > 0 ? ["INVALID"] : [];
  const shared = vm.spec.mtlsConfig?.shared !== undefined;
  const ca = trustOf(vm, model.trust);
  for (const name of [...new Set(vm.spec.meshes.map((m) => m.name))].sort(compareStrings)) {
    const meshErrors = reporter.meshErrors(key, name);
    const member = members.get(name);
    const joined = member?.virtualMesh === vm;
    const trust = joined && shared ? meshTrustStatus(member, ca, model.certificateReport(member.mesh.spec.cluster, name)) : undefined;
    const trustState: State = trust === undefined || trustCarries(trust) ? "ACCEPTED" : trust.state === "FAILED" ? "FAILED" : "PENDING";
    const state = !joined || meshErrors.length > 0 ? "INVALID" : trustState;
    states.push(state);
    meshes[name] = { ...withErrors({ state }, meshErrors), ...(trust === undefined ? {} : { trust }) };
  }
  return { ...withErrors({ observedGeneration: vm.metadata.generation, state: worst(states) }, errors), meshes };
}
