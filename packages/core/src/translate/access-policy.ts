import type { Destination } from "../api/index";
import { pushTo, sortedUnique } from "./compare";
import { type AccessPolicy, authorizationPolicy, authorizationRule } from "./istio/authorization-policy";
import { identityErrors, istioSources, type IstioSources } from "./istio/principals";
import type { Model } from "./model";
import { osmPortError, osmSources, trafficTargets } from "./osm/traffic-target";
import type { PolicyOutcome } from "./outcome";
import type { OutputSink } from "./output";
import { resourceKeyOf } from "../identity";
import type { Reporter } from "./reporter";
import { selectDestinations } from "./selectors";

type Report = (policy: AccessPolicy, error: string) => void;

function istioDestination(destination: Destination, policies: readonly AccessPolicy[], sources: Map<string, IstioSources>, model: Model, report: Report, sink: OutputSink): Set<AccessPolicy> {
  if (Object.keys(destination.spec.selector).length === 0) {
    for (const p of policies) report(p, "the service has no selector: an AuthorizationPolicy for it would apply to every workload of the namespace");
    return new Set();
  }
  const rules = policies.map((policy) => ({ policy, rule: authorizationRule(policy, destination, sources.get(policy.metadata.name) as IstioSources) }));
  if (rules.length > 0) sink.add(destination.spec.cluster, authorizationPolicy(destination, rules, model));
  return new Set(policies);
}

function osmDestination(destination: Destination, policies: readonly AccessPolicy[], model: Model, report: Report, sink: OutputSink): Set<AccessPolicy> {
  const accounts = sortedUnique(model.backingWorkloads(destination).map((w) => w.spec.serviceAccount));
  const accepted = new Set<AccessPolicy>();
  for (const policy of policies) {
    const { accounts: sources, errors } = osmSources(policy.spec.sourceSelector, destination, model);
    if (accounts.length === 0) errors.push("OSM (SMI TrafficTarget) needs the service account of the destination, and no workload backs this service");
    const portError = osmPortError(policy, destination);
    if (portError !== undefined) errors.push(portError);
    if (errors.length > 0) {
      for (const e of errors) report(policy, e);
      continue;
    }
    for (const draft of trafficTargets(policy, destination, accounts, sources)) sink.add(destination.spec.cluster, draft);
    accepted.add(policy);
  }
  return accepted;
}

/**
 * Applies every AccessPolicy (API.md §6): Istio destinations get one AuthorizationPolicy with a rule
 * per policy, OSM destinations SMI TrafficTargets and HTTPRouteGroups. Access policies are additive
 * and never conflict, so they are applied in name order and carry no acceptance numbers. Refs to
 * unknown services or clusters make a policy INVALID and unapplied. Returns outcomes for status.
 */
export function translateAccessPolicies(model: Model, reporter: Reporter, sink: OutputSink): Map<string, PolicyOutcome> {
  const outcomes = new Map<string, PolicyOutcome>();
  const byDestination = new Map<string, AccessPolicy[]>();
  const sources = new Map<string, IstioSources>();
  for (const policy of model.accessPolicies) {
    const key = resourceKeyOf(policy);
    const { matched, missing } = selectDestinations(model, policy.spec.destinationSelector);
    for (const ref of missing) reporter.report(key, undefined, `destinationSelector: service ${ref} not found`);
    for (const error of identityErrors(policy.spec.sourceSelector, model)) reporter.report(key, undefined, error);
    sources.set(policy.metadata.name, istioSources(policy.spec.sourceSelector, model));
    outcomes.set(policy.metadata.name, { destinations: new Map() });
    for (const d of matched) pushTo(byDestination, d.metadata.name, policy);
  }
  for (const [name, policies] of byDestination) {
    const destination = model.destinations.get(name) as Destination;
    const valid = policies.filter((p) => !reporter.hasErrors(resourceKeyOf(p)));
    const report: Report = (p, error) => reporter.report(resourceKeyOf(p), name, error);
    const accepted =
      model.meshOf(destination).spec.type === "istio" ? istioDestination(destination, valid, sources, model, report, sink) : osmDestination(destination, valid, model, report, sink);
    for (const p of policies) outcomes.get(p.metadata.name)?.destinations.set(name, { accepted: accepted.has(p) });
  }
  return outcomes;
}
