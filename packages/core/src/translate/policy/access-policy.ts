import type { Destination } from "../../api/index";
import { pushTo, sortedUnique } from "../compare";
import {
  type AccessPolicy,
  authorizationPolicy,
  authorizationRule,
  waypointAuthorizationPolicy,
  waypointPrincipal,
  waypointRule,
} from "../istio/authorization-policy";
import { accessDataPlaneErrors, podsDropRule } from "../istio/data-planes";
import { identityErrors, istioSources, type IstioSources } from "../istio/principals";
import type { Model } from "../input/model";
import { osmPortError, osmSources, trafficTargets } from "../osm/traffic-target";
import { Collector, type DraftSink, type OutputSink } from "../output/sink";
import type { PolicyOutcome, PolicyResult } from "../status/outcome";
import { Reporter } from "../status/reporter";
import { resourceKeyOf } from "../../identity";
import { selectDestinations } from "../input/selectors";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import { type CopyDrift, accessRejected, invalidElsewhere, driftOf, globalCopies, keptOff, sameDrift, selectionDrift } from "./global-copies";
import { reachingMeshes } from "./traffic-policy";

type Report = (policy: AccessPolicy, error: string) => void;

function istioDestination(
  destination: Destination,
  policies: readonly AccessPolicy[],
  sources: Map<string, IstioSources>,
  model: Model,
  plan: FederationPlan,
  report: Report,
  sink: DraftSink,
): Set<AccessPolicy> {
  if (Object.keys(destination.spec.selector).length === 0) {
    for (const p of policies) report(p, "the service has no selector: an AuthorizationPolicy for it would apply to every workload of the namespace");
    return new Set();
  }
  // A rule its enforcing proxy would not apply as written is refused here (docs/ambient.md#what-translation-does).
  const reaching = reachingMeshes([destination], model, plan);
  const enforced = policies.filter((p) => {
    const errors = accessDataPlaneErrors(p, sources.get(p.metadata.name) as IstioSources, destination, reaching, model);
    for (const e of errors) report(p, e);
    return errors.length === 0;
  });
  if (enforced.length === 0) return new Set();
  const sourcesOf = (p: AccessPolicy) => sources.get(p.metadata.name) as IstioSources;
  const rules = enforced.map((policy) => ({ policy, rule: authorizationRule(policy, destination, sourcesOf(policy)) }));
  const waypoint = destination.spec.waypoint;
  if (waypoint === undefined) {
    sink.add(destination.spec.cluster, authorizationPolicy(destination, rules, model));
    return new Set(enforced);
  }
  // Behind a waypoint (docs/ambient.md#accesspolicy): the waypoint enforces every rule on calls
  // addressed to the service; the pods admit the waypoint, and — for callers that do not pass it
  // (sidecars, calls addressed to a pod) — each rule their proxies can check: all of them where no
  // pod is ambient, else those without paths or methods (the others refuse such callers, and a
  // policy naming sidecar callers is refused above).
  const podRules = rules.map((r) => (podsDropRule(r.policy, destination, model) ? { policy: r.policy, rule: undefined } : r));
  const admitWaypoint = { from: [{ source: { principals: [waypointPrincipal(model.meshOf(destination), waypoint)] } }] };
  sink.add(destination.spec.cluster, authorizationPolicy(destination, podRules, model, [admitWaypoint]));
  const waypointRules = enforced.map((policy) => ({ policy, rule: waypointRule(policy, sourcesOf(policy)) }));
  sink.add(destination.spec.cluster, waypointAuthorizationPolicy(destination, waypointRules, model));
  return new Set(enforced);
}

function osmDestination(destination: Destination, policies: readonly AccessPolicy[], model: Model, report: Report, sink: DraftSink): Set<AccessPolicy> {
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

/** What an AccessPolicy selects, its policy-wide errors and its Istio sources: depends on the policy and the discovered world only. */
export interface AccessSelection {
  /** Names of the selected destinations, sorted. */
  destinations: string[];
  errors: string[];
  sources: IstioSources;
}

/** Selects one AccessPolicy's destinations and Istio sources, and finds its policy-wide errors (refs to services not discovered, to clusters without a mesh). */
export function selectAccessPolicy(policy: AccessPolicy, model: Model): AccessSelection {
  const { matched, missing } = selectDestinations(model, policy.spec.destinationSelector);
  const errors = [...missing.map((ref) => `destinationSelector: service ${ref} ${model.missing(ref)}`), ...identityErrors(policy.spec.sourceSelector, model)];
  return { destinations: matched.map((d) => d.metadata.name), errors, sources: istioSources(policy.spec.sourceSelector, model) };
}

/** How the AccessPolicies selecting one destination fared there, and what they generated. */
export interface AccessUnit {
  accepted: Set<string>;
  /**
   * Whether the outcome read which workloads can call the destination (sidecar callers of a policy
   * with paths or methods behind a waypoint), so any workload change may change it.
   */
  readsCallers: boolean;
  /** [policy name, error] on this destination. */
  reports: [string, string][];
  objects: Collector;
}

/**
 * Applies the AccessPolicies selecting one destination (docs/resources.md#accesspolicy), `policies`
 * in name order, `selection` giving each one's sources and validity and `plan` the meshes
 * federated to it (its callers with theirs): Istio destinations get their AuthorizationPolicies
 * with a rule per policy, OSM destinations SMI TrafficTargets and
 * HTTPRouteGroups. Access policies are additive and never conflict, so they carry no acceptance
 * numbers; one with policy-wide errors is applied nowhere, and one `drift` names is reported with
 * its errors and applied nowhere here (a global service's copies: docs/ambient.md#policies-on-a-global-service).
 */
export function applyAccessToDestination(
  destination: Destination,
  policies: readonly AccessPolicy[],
  selection: (p: AccessPolicy) => AccessSelection,
  model: Model,
  plan: FederationPlan,
  drift: CopyDrift = new Map(),
): AccessUnit {
  const unit: AccessUnit = { accepted: new Set(), readsCallers: false, reports: [], objects: new Collector() };
  const report: Report = (p, error) => unit.reports.push([p.metadata.name, error]);
  const valid = policies.filter((p) => selection(p).errors.length === 0 && keptOff(p, drift, report));
  const istio = model.meshOf(destination).spec.type === "istio";
  unit.readsCallers = istio && valid.some((p) => podsDropRule(p, destination, model));
  const sources = new Map(valid.map((p) => [p.metadata.name, selection(p).sources]));
  const accepted = istio
    ? istioDestination(destination, valid, sources, model, plan, report, unit.objects)
    : osmDestination(destination, valid, model, report, unit.objects);
  for (const p of accepted) unit.accepted.add(p.metadata.name);
  return unit;
}

/** An AccessPolicy's outcome on each destination it selects, and its errors, from the units of those destinations. */
export function accessOutcome(p: AccessPolicy, selection: AccessSelection, unitOf: (destination: string) => AccessUnit | undefined): PolicyResult {
  const name = p.metadata.name;
  const key = resourceKeyOf(p);
  const reporter = new Reporter();
  for (const error of selection.errors) reporter.report(key, undefined, error);
  const outcome: PolicyOutcome = { destinations: new Map() };
  for (const d of selection.destinations) {
    const unit = unitOf(d);
    if (unit === undefined) continue;
    outcome.destinations.set(d, { accepted: unit.accepted.has(name) });
    for (const [policy, error] of unit.reports) if (policy === name) reporter.report(key, d, error);
  }
  return { outcome, reporter };
}

/**
 * Translates the tenant's AccessPolicies (docs/resources.md#accesspolicy): selects each policy's
 * destinations, applies to every selected destination the policies that select it, and hands what
 * they generate there to `sink` as the unit `access/<destination>`. Returns each policy's result by
 * name.
 */
export function translateAccessPolicies(model: Model, plan: FederationPlan, sink: OutputSink): Map<string, PolicyResult> {
  const selections = new Map(model.accessPolicies.map((p) => [p.metadata.name, selectAccessPolicy(p, model)]));
  const selectionOf = (p: AccessPolicy) => selections.get(p.metadata.name) as AccessSelection;
  const byDestination = new Map<string, AccessPolicy[]>();
  for (const p of model.accessPolicies) for (const d of selectionOf(p).destinations) pushTo(byDestination, d, p);
  const units = new Map<string, AccessUnit>();
  const copies = globalCopies(plan);
  const first = selectionDrift(
    copies,
    (d) => byDestination.get(d),
    (p) => selectionOf(p).errors.length === 0,
  );
  const apply = (name: string, drift: CopyDrift) =>
    units.set(name, applyAccessToDestination(model.destinations.get(name) as Destination, byDestination.get(name) ?? [], selectionOf, model, plan, drift));
  for (const name of byDestination.keys()) apply(name, driftOf(first, name));
  // A global service's copies again, where a policy is INVALID on another copy (docs/ambient.md#policies-on-a-global-service).
  const drift = invalidElsewhere(copies, first, byDestination, (d, p) => accessRejected(units.get(d), p));
  for (const name of copies.keys()) {
    const wanted = driftOf(drift, name);
    if (byDestination.has(name) && !sameDrift(wanted, driftOf(first, name))) apply(name, wanted);
  }
  for (const [name, unit] of units) sink.contribute(`access/${name}`, unit.objects);
  return new Map(model.accessPolicies.map((p) => [p.metadata.name, accessOutcome(p, selectionOf(p), (d) => units.get(d))]));
}
