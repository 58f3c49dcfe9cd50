import { translateAccessPolicies } from "./access-policy";
import { planFederation } from "./federation-plan";
import { resolveMemberships } from "./membership";
import { buildModel } from "./model";
import { emptyOutcome } from "./outcome";
import { OutputSink } from "./output";
import { type ResourceKey, resourceKeyOf } from "../identity";
import { Reporter } from "./reporter";
import { policyStatus, virtualMeshStatus } from "./status";
import { translateTrafficPolicies } from "./traffic-policy";
import type { TranslateInput, TranslateOutput } from "./types";
import { checkTrustDomains } from "./trust-domains";
import { translateVirtualMeshes } from "./virtual-mesh";
import type { ResourceStatus } from "../api/index";

/**
 * Translates one tenant's intent and discovered world into per-cluster mesh configuration and a
 * status for every VirtualMesh, TrafficPolicy and AccessPolicy (API.md §4–8). Pure: no I/O, clock
 * or randomness, and the same input — in any list order — gives byte-identical output. User
 * mistakes become statuses; only bugs (or input that upstream validation must have rejected, such as
 * two destinations with one name) throw, as TranslateError.
 */
export function translate(input: TranslateInput): TranslateOutput {
  const model = buildModel(input);
  const reporter = new Reporter();
  const sink = new OutputSink(model.tenant, model.clusters);
  const members = resolveMemberships(model, reporter);
  checkTrustDomains(members, reporter);
  const plan = planFederation(model, members, reporter);
  translateVirtualMeshes(model, plan, sink);
  const traffic = translateTrafficPolicies(model, plan, reporter, sink);
  const access = translateAccessPolicies(model, reporter, sink);

  const statuses: Record<ResourceKey, ResourceStatus> = {};
  for (const vm of model.virtualMeshes) statuses[resourceKeyOf(vm)] = virtualMeshStatus(vm, members, reporter, model);
  for (const p of model.trafficPolicies) statuses[resourceKeyOf(p)] = policyStatus(p, traffic.get(p.metadata.name) ?? emptyOutcome(), reporter);
  for (const p of model.accessPolicies) statuses[resourceKeyOf(p)] = policyStatus(p, access.get(p.metadata.name) ?? emptyOutcome(), reporter);
  return { clusters: sink.finish(), statuses };
}
