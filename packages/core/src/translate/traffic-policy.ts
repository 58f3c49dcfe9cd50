import type { Destination, Workload } from "../api/index";
import { AcceptanceCounter, acceptanceOrder } from "./acceptance";
import { pushTo } from "./compare";
import type { FederationPlan } from "./federation-plan";
import { applyToIstioDestination } from "./istio/apply-traffic-policies";
import { shiftSubsets } from "./istio/decorators/index";
import type { TrafficPolicy } from "./istio/destination-state";
import { type IstioOutputs, renderIstioDestination } from "./istio/render-destination";
import { SubsetDemands } from "./istio/subsets";
import type { Model } from "./model";
import { applyToOsmDestination, trafficSplit } from "./osm/traffic-split";
import type { PolicyOutcome } from "./outcome";
import type { OutputSink } from "./output";
import { resourceKeyOf } from "../identity";
import type { Reporter } from "./reporter";
import { selectDestinations, selectWorkloads } from "./selectors";
import { trafficPolicyErrors } from "./traffic-validation";

/** Meshes whose clients can reach any of `destinations`: their clusters' meshes and the meshes they are federated to. */
function reachingMeshes(destinations: readonly Destination[], model: Model, plan: FederationPlan): Set<string> {
  const meshes = new Set<string>();
  for (const d of destinations) {
    for (const m of model.meshesIn(d.spec.cluster)) meshes.add(m.metadata.name);
    for (const m of plan.exports.get(d.metadata.name)?.targetNames ?? []) meshes.add(m);
  }
  return meshes;
}

/** Status lists at most this many source workloads: statuses live in one 400 KB DynamoDB item. */
export const MAX_STATUS_WORKLOADS = 1000;

/**
 * `status.workloads` (API.md §7): the source workloads the policy's sourceSelector matches among
 * those that can reach its destinations, capped at MAX_STATUS_WORKLOADS with a final
 * `…and N more`. Undefined without a sourceSelector: the policy applies to every client, and
 * listing the whole tenant would say nothing while growing the status past storage limits.
 */
function sourceWorkloads(policy: TrafficPolicy, matched: readonly Destination[], model: Model, plan: FederationPlan): string[] | undefined {
  if ((policy.spec.sourceSelector ?? []).length === 0) return undefined;
  const reaching = reachingMeshes(matched, model, plan);
  const names = selectWorkloads(model, policy.spec.sourceSelector)
    .filter((w: Workload) => reaching.has(w.spec.mesh))
    .map((w) => w.metadata.name);
  if (names.length <= MAX_STATUS_WORKLOADS) return names;
  return [...names.slice(0, MAX_STATUS_WORKLOADS), `…and ${names.length - MAX_STATUS_WORKLOADS} more`];
}

/** Selects each policy's destinations and sources and reports policy-wide errors; returns policies by destination. */
function select(model: Model, plan: FederationPlan, reporter: Reporter, outcomes: Map<string, PolicyOutcome>): Map<string, TrafficPolicy[]> {
  const byDestination = new Map<string, TrafficPolicy[]>();
  for (const policy of model.trafficPolicies) {
    const { matched, missing } = selectDestinations(model, policy.spec.destinationSelector);
    for (const error of trafficPolicyErrors(policy, model, missing)) reporter.report(resourceKeyOf(policy), undefined, error);
    outcomes.set(policy.metadata.name, { destinations: new Map(), workloads: sourceWorkloads(policy, matched, model, plan) });
    for (const d of matched) pushTo(byDestination, d.metadata.name, policy);
  }
  return byDestination;
}

/**
 * Applies every TrafficPolicy (API.md §5) and adds the resulting objects to `sink`: per destination,
 * policies in acceptance order, Istio destinations through the decorators into VirtualServices and
 * DestinationRules (in their own cluster and every mesh they are federated to), OSM destinations
 * into a TrafficSplit. Every Istio destination gets its DestinationRule, policies or not. Returns
 * per-policy outcomes for status; user errors go to `reporter`.
 */
export function translateTrafficPolicies(model: Model, plan: FederationPlan, reporter: Reporter, sink: OutputSink): Map<string, PolicyOutcome> {
  const outcomes = new Map<string, PolicyOutcome>();
  const byDestination = select(model, plan, reporter, outcomes);
  const demands = new SubsetDemands();
  const istio: IstioOutputs[] = [];
  for (const destination of model.destinations.values()) {
    const name = destination.metadata.name;
    const ordered = acceptanceOrder(byDestination.get(name) ?? [], name);
    const valid = ordered.filter((p) => !reporter.hasErrors(resourceKeyOf(p)));
    const report = (p: TrafficPolicy, error: string) => reporter.report(resourceKeyOf(p), name, error);
    let accepted: TrafficPolicy[];
    if (model.meshOf(destination).spec.type === "istio") {
      const applied = applyToIstioDestination(destination, valid, { model, plan }, report);
      // A mesh's own ingress/east-west gateway gets nothing unasked: a default ISTIO_MUTUAL rule
      // would make in-mesh clients wrap mTLS around traffic the gateway's listeners expect plain.
      if (!(isMeshGateway(model, destination) && applied.accepted.length === 0)) istio.push(applied.outputs);
      accepted = applied.accepted;
      for (const p of accepted) for (const s of shiftSubsets(p.spec.policy)) demandSubset(model, demands, s, p);
    } else {
      const applied = applyToOsmDestination(destination, valid, model, report);
      accepted = applied.accepted;
      if (applied.split !== undefined) sink.add(destination.spec.cluster, trafficSplit(destination, applied.split, accepted));
    }
    const counter = new AcceptanceCounter(ordered, name);
    const acceptedSet = new Set(accepted);
    for (const p of ordered) {
      const ok = acceptedSet.has(p);
      outcomes.get(p.metadata.name)?.destinations.set(name, { accepted: ok, order: counter.take(p, name, ok) });
    }
  }
  for (const outputs of istio) for (const { cluster, draft } of renderIstioDestination(outputs, demands, { model, plan })) sink.add(cluster, draft);
  return outcomes;
}

function isMeshGateway(model: Model, destination: Destination): boolean {
  const gateways = model.meshOf(destination).spec.istio?.gateways ?? [];
  return gateways.some((g) => g.name === destination.spec.name && g.namespace === destination.spec.namespace);
}

function demandSubset(model: Model, demands: SubsetDemands, s: ReturnType<typeof shiftSubsets>[number], policy: TrafficPolicy): void {
  const target = model.destinationByRef(s);
  if (target !== undefined) demands.add(target.metadata.name, s.labels, policy.metadata.name);
}
