import type { ResourceStatus } from "../../api/index";
import { type ResourceKey, resourceKeyOf } from "../../identity";
import type { Model } from "../input/model";
import { Reporter } from "../status/reporter";
import { virtualMeshStatus } from "../status/status";
import { FederationLinks } from "./federation-links";
import { type FederationPlan, planFederation } from "./federation-plan";
import { resolveMemberships } from "./membership";
import { checkTrustDomains } from "./trust-domains";
import { reportRoutingApis } from "../gateway-api/routing-api";

/** What the VirtualMeshes make of a tenant before any policy: the federation plan, the calls they carry, their statuses. */
export interface Federation {
  plan: FederationPlan;
  /** Whether the VirtualMeshes can carry a call from one mesh to another, and why not. */
  links: FederationLinks;
  /** Each VirtualMesh's status by resource key, in name order. */
  statuses: Record<ResourceKey, ResourceStatus>;
}

/**
 * Decides which VirtualMesh each mesh belongs to, checks the members' trust domains, plans federation
 * and gives each VirtualMesh its status (docs/resources.md#virtualmesh). Reads discovery, the
 * VirtualMeshes and their CAs only, never the policies.
 */
export function federate(model: Model): Federation {
  const reporter = new Reporter();
  const members = resolveMemberships(model, reporter);
  reportRoutingApis(members, reporter);
  const refusals = checkTrustDomains(members, reporter);
  const plan = planFederation(model, members, reporter);
  const statuses: Record<ResourceKey, ResourceStatus> = {};
  for (const vm of model.virtualMeshes) statuses[resourceKeyOf(vm)] = virtualMeshStatus(vm, members, reporter, model);
  const links = new FederationLinks(model, plan, refusals, (vm, mesh) => statuses[resourceKeyOf(vm)]?.meshes?.[mesh]);
  return { plan, links, statuses };
}
