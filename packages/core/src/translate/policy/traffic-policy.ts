import type { Destination, RoutingApi, Workload } from "../../api/index";
import { AcceptanceCounter, acceptanceOrder, previousOrder } from "./acceptance";
import { pushTo, sortedUnique } from "../compare";
import type { FederationLinks } from "../virtual-mesh/federation-links";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import { type RouteOutput, applyToIstioDestination } from "../istio/apply-traffic-policies";
import { RULE_DECORATORS } from "../gateway-api/decorators/index";
import { httpRoutes } from "../gateway-api/http-route";
import { routeFitErrors } from "../gateway-api/limits";
import { gatewayPolicyErrors } from "../gateway-api/policy-errors";
import { routingApiOf } from "../gateway-api/routing-api";
import { shiftSubsets } from "../istio/decorators/index";
import type { TrafficPolicy } from "../istio/destination-state";
import { type IstioOutputs, renderIstioDestination } from "../istio/render-destination";
import { type OffSidecarCaller, callerDataPlaneErrors, offSidecarCallers } from "../istio/data-planes";
import { SubsetDemands } from "../istio/subsets";
import type { Model } from "../input/model";
import { applyToOsmDestination, trafficSplit } from "../osm/traffic-split";
import type { DestinationOutcome, PolicyOutcome, PolicyResult } from "../status/outcome";
import { Reporter } from "../status/reporter";
import { resourceKeyOf } from "../../identity";
import type { ObjectDraft, OutputSink } from "../output/sink";
import { selectDestinations, selectWorkloads } from "../input/selectors";
import { trafficPolicyErrors } from "./traffic-validation";
import { type CopyDrift, driftOf, globalCopies, keptOff, sameDrift, selectionDrift, trafficRejected, invalidElsewhere } from "./global-copies";

/** Meshes whose clients can reach any of `destinations`: their clusters' meshes and the meshes they are federated to. */
export function reachingMeshes(destinations: readonly Destination[], model: Model, plan: FederationPlan): Set<string> {
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
 * `status.workloads` (docs/resources.md#status): the source workloads the policy's sourceSelector
 * matches among those that can reach its destinations, capped at MAX_STATUS_WORKLOADS with a final
 * `…and N more`.
 */
function sourceWorkloads(sources: readonly Workload[], matched: readonly Destination[], model: Model, plan: FederationPlan): string[] {
  const reaching = reachingMeshes(matched, model, plan);
  const names = sources.filter((w) => reaching.has(w.spec.mesh)).map((w) => w.metadata.name);
  if (names.length <= MAX_STATUS_WORKLOADS) return names;
  return [...names.slice(0, MAX_STATUS_WORKLOADS), `…and ${names.length - MAX_STATUS_WORKLOADS} more`];
}

/** What a TrafficPolicy selects, and its policy-wide errors: depends on the policy and the discovered world only. */
export interface TrafficSelection {
  /** Names of the selected destinations, sorted. */
  destinations: string[];
  /** Errors that make the policy INVALID everywhere (it is then applied nowhere). */
  errors: string[];
  /**
   * Undefined without a sourceSelector: the policy applies to every client, and listing the whole
   * tenant would say nothing while growing the status past storage limits.
   */
  workloads: string[] | undefined;
  /** The meshes its source workloads are in, sorted; undefined without a sourceSelector (every caller). */
  callerMeshes: string[] | undefined;
  /** Its source workloads that run no sidecar, by name; undefined without a sourceSelector. */
  offSidecar: OffSidecarCaller[] | undefined;
}

/** Selects one policy's destinations and sources and finds its policy-wide errors. */
export function selectTrafficPolicy(policy: TrafficPolicy, model: Model, plan: FederationPlan): TrafficSelection {
  const { matched, missing } = selectDestinations(model, policy.spec.destinationSelector);
  const destinations = matched.map((d) => d.metadata.name);
  const errors = trafficPolicyErrors(policy, model, missing);
  if ((policy.spec.sourceSelector ?? []).length === 0) return { destinations, errors, workloads: undefined, callerMeshes: undefined, offSidecar: undefined };
  const sources = selectWorkloads(model, policy.spec.sourceSelector);
  return {
    destinations,
    errors,
    workloads: sourceWorkloads(sources, matched, model, plan),
    callerMeshes: sortedUnique(sources.map((w) => w.spec.mesh)),
    offSidecar: offSidecarCallers(sources),
  };
}

/** A subset a policy's trafficShift routes to on another destination (its DestinationRule must define it). */
export interface SubsetDemand {
  destination: string;
  labels: Record<string, string>;
  policy: string;
}

/** How every policy selecting one destination fared there, and what the destination's routing needs rendered. */
export interface TrafficUnit {
  /** Per policy name, accepted or not and its acceptance number. */
  outcomes: Map<string, DestinationOutcome>;
  /** [policy name, error] on this destination. */
  reports: [string, string][];
  /** Istio: the merged routing state, rendered once subset demands are known (undefined: nothing to render). */
  istio: IstioOutputs | undefined;
  /** OSM: the TrafficSplit, if a policy shifts traffic. */
  osm: ObjectDraft | undefined;
  demands: SubsetDemand[];
}

/** What applying policies to one destination reads besides the policies and the destination. */
export interface TrafficContext {
  model: Model;
  plan: FederationPlan;
  links: FederationLinks;
  /** Whether a policy has no policy-wide errors. */
  valid: (p: TrafficPolicy) => boolean;
  /** Its selection's `callerMeshes`, as a set. */
  callers: (p: TrafficPolicy) => ReadonlySet<string> | undefined;
  /** Its selection's `offSidecar`. */
  offSidecar: (p: TrafficPolicy) => readonly OffSidecarCaller[] | undefined;
}

/**
 * Applies `policies` (those selecting `destination`) to one destination
 * (docs/resources.md#trafficpolicy): in acceptance order, Istio destinations through the
 * decorators, OSM destinations into a TrafficSplit. A policy `drift` names is reported with its
 * errors and applied nowhere here (a global service's copies: docs/ambient.md#policies-on-a-global-service). The result depends
 * only on the destination, the world, those policies with their previous acceptance numbers here,
 * `drift` and — for policies with a sourceSelector — the meshes of their sources, so it can be kept
 * while they stay the same.
 */
export function applyTrafficToDestination(
  destination: Destination,
  policies: readonly TrafficPolicy[],
  ctx: TrafficContext,
  drift: CopyDrift = new Map(),
): TrafficUnit {
  const { model, plan, valid } = ctx;
  const name = destination.metadata.name;
  const ordered = acceptanceOrder(policies, name);
  const unit: TrafficUnit = { outcomes: new Map(), reports: [], istio: undefined, osm: undefined, demands: [] };
  const report = (p: TrafficPolicy, error: string) => unit.reports.push([p.metadata.name, error]);
  const usable = ordered.filter(valid).filter((p) => keptOff(p, drift, report));
  let accepted: TrafficPolicy[];
  let held: ReadonlyMap<TrafficPolicy, "PENDING" | "FAILED"> = new Map();
  const mesh = model.meshOf(destination);
  if (mesh.spec.type === "istio") {
    const api = routingApiOf(mesh, plan.members);
    const applied = applyToIstioDestination(
      destination,
      reachingCallers(destination, usable, ctx, api, report),
      { model, plan, links: ctx.links, callers: ctx.callers, ...(api === "GATEWAY_API" ? { routes: httpRouteOutput(plan) } : {}) },
      report,
    );
    if (api === "GATEWAY_API") applied.outputs.routing = api;
    held = applied.held;
    // A mesh's own ingress/east-west gateway gets nothing unasked: a default ISTIO_MUTUAL rule
    // would make in-mesh clients wrap mTLS around traffic the gateway's listeners expect plain.
    if (!(isMeshGateway(model, destination) && applied.accepted.length === 0)) unit.istio = applied.outputs;
    accepted = applied.accepted;
    for (const p of accepted) {
      for (const s of shiftSubsets(p.spec.policy)) {
        const target = model.destinationByRef(s);
        if (target !== undefined) unit.demands.push({ destination: target.metadata.name, labels: s.labels, policy: p.metadata.name });
      }
    }
  } else {
    const applied = applyToOsmDestination(destination, usable, model, report);
    accepted = applied.accepted;
    if (applied.split !== undefined) unit.osm = trafficSplit(destination, applied.split, accepted);
  }
  const counter = new AcceptanceCounter(ordered, name);
  const acceptedSet = new Set(accepted);
  for (const p of ordered) {
    const ok = acceptedSet.has(p);
    const waiting = held.get(p);
    unit.outcomes.set(p.metadata.name, { accepted: ok, order: counter.take(p, name, ok), ...(waiting === undefined ? {} : { state: waiting }) });
  }
  return unit;
}

/**
 * The policies among `policies` whose routes (of the mesh's output API `api`) and DestinationRule
 * reach every caller they are for on an Istio destination: sidecars apply both; callers in Istio's
 * ambient data plane get them only from the service's waypoint, and only as Gateway API routes;
 * callers outside the mesh get neither. A policy that would miss some is reported INVALID there and
 * applied nowhere on it (docs/ambient.md#what-translation-does).
 */
function reachingCallers(
  destination: Destination,
  policies: readonly TrafficPolicy[],
  ctx: TrafficContext,
  api: RoutingApi,
  report: (p: TrafficPolicy, error: string) => void,
): TrafficPolicy[] {
  if (policies.length === 0) return [];
  const reaching = reachingMeshes([destination], ctx.model, ctx.plan);
  return policies.filter((p) => {
    const errors = callerDataPlaneErrors(destination, reaching, ctx.offSidecar(p), ctx.model, api);
    for (const error of errors) report(p, error);
    return errors.length === 0;
  });
}

/**
 * The context a destination's policies are applied in: the world, and each policy's validity and
 * caller meshes as `selectionOf` gives its selection.
 */
export function trafficContext(
  model: Model,
  plan: FederationPlan,
  links: FederationLinks,
  selectionOf: (p: TrafficPolicy) => TrafficSelection,
): TrafficContext {
  const callerSets = new Map<TrafficPolicy, ReadonlySet<string> | undefined>();
  const callers = (p: TrafficPolicy) => {
    if (!callerSets.has(p)) {
      const meshes = selectionOf(p).callerMeshes;
      callerSets.set(p, meshes === undefined ? undefined : new Set(meshes));
    }
    return callerSets.get(p);
  };
  return { model, plan, links, valid: (p) => selectionOf(p).errors.length === 0, callers, offSidecar: (p) => selectionOf(p).offSidecar };
}

/** A TrafficPolicy's outcome on each destination it selects, and its errors, from the units of those destinations. */
export function trafficOutcome(p: TrafficPolicy, selection: TrafficSelection, unitOf: (destination: string) => TrafficUnit | undefined): PolicyResult {
  const name = p.metadata.name;
  const key = resourceKeyOf(p);
  const reporter = new Reporter();
  for (const error of selection.errors) reporter.report(key, undefined, error);
  const outcome: PolicyOutcome = { destinations: new Map(), workloads: selection.workloads };
  for (const d of selection.destinations) {
    const unit = unitOf(d);
    const o = unit?.outcomes.get(name);
    if (unit === undefined || o === undefined) continue;
    outcome.destinations.set(d, o);
    for (const [policy, error] of unit.reports) if (policy === name) reporter.report(key, d, error);
  }
  return { outcome, reporter };
}

/**
 * Translates the tenant's TrafficPolicies (docs/resources.md#trafficpolicy): selects each policy's
 * destinations, applies to every destination the policies that select it, renders each one's
 * routing with the subsets other destinations' policies shift traffic to, and hands it to `sink` as
 * the unit `traffic/<destination>`. Returns each policy's result by name.
 */
export function translateTrafficPolicies(model: Model, plan: FederationPlan, links: FederationLinks, sink: OutputSink): Map<string, PolicyResult> {
  const selections = new Map(model.trafficPolicies.map((p) => [p.metadata.name, selectTrafficPolicy(p, model, plan)]));
  const selectionOf = (p: TrafficPolicy) => selections.get(p.metadata.name) as TrafficSelection;
  const byDestination = new Map<string, TrafficPolicy[]>();
  for (const p of model.trafficPolicies) for (const d of selectionOf(p).destinations) pushTo(byDestination, d, p);
  const ctx = trafficContext(model, plan, links, selectionOf);
  const units = new Map<string, TrafficUnit>();
  const copies = globalCopies(plan);
  const first = selectionDrift(copies, (d) => byDestination.get(d), ctx.valid);
  for (const [name, destination] of model.destinations) {
    units.set(name, applyTrafficToDestination(destination, byDestination.get(name) ?? [], ctx, driftOf(first, name)));
  }
  // A global service's copies again, where a policy is INVALID on another copy (docs/ambient.md#policies-on-a-global-service).
  const drift = invalidElsewhere(copies, first, byDestination, (d, p) => trafficRejected(units.get(d), p));
  for (const name of copies.keys()) {
    const wanted = driftOf(drift, name);
    if (sameDrift(wanted, driftOf(first, name))) continue;
    units.set(name, applyTrafficToDestination(model.destinations.get(name) as Destination, byDestination.get(name) ?? [], ctx, wanted));
  }
  const demands = new SubsetDemands();
  for (const name of model.destinations.keys()) for (const d of (units.get(name) as TrafficUnit).demands) demands.add(d.destination, d.labels, d.policy);
  for (const [name, destination] of model.destinations) {
    const unit = units.get(name) as TrafficUnit;
    const osm = unit.osm === undefined ? [] : [{ cluster: destination.spec.cluster, draft: unit.osm }];
    sink.contribute(`traffic/${name}`, { objects: unit.istio === undefined ? osm : renderTraffic(unit.istio, demands, model, plan), certificates: [] });
  }
  return new Map(model.trafficPolicies.map((p) => [p.metadata.name, trafficOutcome(p, selectionOf(p), (d) => units.get(d))]));
}

/** What `applyTrafficToDestination` reads of each policy besides its content: its previous acceptance number there. */
export function trafficUnitKey(
  destination: string,
  policies: readonly TrafficPolicy[],
  fingerprint: (p: TrafficPolicy) => string,
  valid: (p: TrafficPolicy) => boolean,
): string {
  if (policies.length === 0) return "";
  return policies.map((p) => `${fingerprint(p)}\u0000${previousOrder(p, destination) ?? ""}\u0000${valid(p) ? 1 : 0}`).join("\u0001");
}

/** Renders an Istio destination's routing with the subsets other destinations' policies demand of it. */
export function renderTraffic(outputs: IstioOutputs, demands: SubsetDemands, model: Model, plan: FederationPlan): { cluster: string; draft: ObjectDraft }[] {
  if (outputs.routing !== "GATEWAY_API") return renderIstioDestination(outputs, demands, { model, plan });
  // Its routes are the HTTPRoutes; never also a VirtualService for the same host (Istio leaves that undefined).
  const withoutRoutes = { state: { ...outputs.state, groups: new Map() } };
  return [...httpRoutes(outputs.state), ...renderIstioDestination(withoutRoutes, demands, { model, plan })];
}

/** Gateway API routes: HTTPRoute rule decorators, their field names, what HTTPRoute cannot express, and its size limits. */
function httpRouteOutput(plan: FederationPlan): RouteOutput {
  return {
    decorators: RULE_DECORATORS,
    field: (path) => `HTTPRoute rule field ${path}`,
    errors: (spec, destination) => gatewayPolicyErrors(spec, destination, plan),
    fits: routeFitErrors,
  };
}

function isMeshGateway(model: Model, destination: Destination): boolean {
  const gateways = model.meshOf(destination).spec.istio?.gateways ?? [];
  return gateways.some((g) => g.name === destination.spec.name && g.namespace === destination.spec.namespace);
}
