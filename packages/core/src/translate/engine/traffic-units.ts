import { pushTo } from "../compare";
import { type Model, refKey } from "../input/model";
import type { TrafficPolicy } from "../istio/destination-state";
import { SubsetDemands } from "../istio/subsets";
import { type Contribution, keepUnchanged } from "../output/sink";
import {
  type TrafficSelection,
  type TrafficUnit,
  applyTrafficToDestination,
  reachingMeshes,
  renderTraffic,
  selectTrafficPolicy,
  trafficContext,
  trafficOutcome,
  trafficUnitKey,
} from "../policy/traffic-policy";
import type { PolicyResult } from "../status/outcome";
import type { Destination } from "../../api/index";
import { type CopyDrift, driftKey, driftOf, globalCopies, selectionDrift, trafficRejected, invalidElsewhere } from "../policy/global-copies";
import { type ContentIds, type Selected, selectionsOf } from "./selections";
import type { DiscoveryChange, World } from "./world";
import { type FirstUnit, finalUnit, keptUnit } from "./copies";

/** One destination's routing as last translated, and what of it the sink holds. */
interface KeptTraffic {
  key: string;
  unit: TrafficUnit;
  /** A global service's copy whose policies were applied again (docs/ambient.md#policies-on-a-global-service): the unit as first applied. */
  first?: FirstUnit<TrafficUnit> | undefined;
  /** The rendered Istio routing and the subset demands it was rendered with. */
  render?: { demands: string; contribution: Contribution };
  osm?: Contribution;
  /** What the sink was last given for this destination. */
  sent?: Contribution;
}

const NOTHING: Contribution = { objects: [], certificates: [] };
const NO_POLICIES: TrafficPolicy[] = [];

/**
 * The TrafficPolicies' selections and every destination's routing unit, kept between calls: a call
 * makes again the units a change reaches (their key — the ids and acceptance numbers of the policies
 * selecting the destination — changed, or a discovery change reached what they read) and renders
 * again those and the destinations whose demanded subsets changed.
 */
export class TrafficUnits {
  private policies = new Map<string, Selected<TrafficPolicy, TrafficSelection>>();
  private readonly units = new Map<string, KeptTraffic>();
  /** Destinations whose units demand subsets of others (maybe a few that no longer do). */
  private readonly demanding = new Set<string>();
  private demands = new SubsetDemands();
  private demandKeys = new Map<string, string>();
  /** The copies of global services the last call saw (their units are looked at on every call). */
  private copies = new Set<string>();

  /** Forgets every unit and selection, for a fresh world. */
  clear(): void {
    this.policies.clear();
    this.units.clear();
    this.demanding.clear();
    this.demands = new SubsetDemands();
    this.demandKeys.clear();
    this.copies.clear();
  }

  /**
   * Selections, then the unit of each destination a change may reach (kept when its policies are the
   * same), then rendering of the changed units and of the destinations whose demanded subsets
   * changed; the sink gets what changed. Returns the names of the policies in units that changed.
   */
  apply(model: Model, world: World, change: DiscoveryChange | undefined, ids: ContentIds): Set<string> {
    const fresh = this.units.size === 0;
    const { current, dirty, reselected } = selectionsOf(
      model.trafficPolicies,
      this.policies,
      (p) => selectTrafficPolicy(p, model, world.plan),
      change !== undefined,
      ids,
    );
    this.policies = current;
    const touched = new Set(reselected);
    const forced = change === undefined ? new Set<string>() : reached(change, current.values(), model, world);
    for (const name of forced) dirty.add(name);
    const copies = globalCopies(world.plan);
    const candidates = new Set(fresh ? model.destinations.keys() : dirty);
    for (const name of [...copies.keys(), ...this.copies]) candidates.add(name);
    this.copies = new Set(copies.keys());
    const changed: string[] = [];
    if (candidates.size > 0) {
      const byDestination = new Map<string, TrafficPolicy[]>();
      for (const { policy, selection } of current.values()) for (const d of selection.destinations) pushTo(byDestination, d, policy);
      const ctx = trafficContext(model, world.plan, world.links, (p) => (current.get(p.metadata.name) as Selected<TrafficPolicy, TrafficSelection>).selection);
      const keyOf = (name: string, drift: CopyDrift) =>
        `${trafficUnitKey(name, byDestination.get(name) ?? NO_POLICIES, (p) => ids.of(p), ctx.valid)}\u0002${driftKey(drift)}`;
      // First the units as the policies select them, then a global service's copies again where a
      // policy is INVALID on another copy (docs/ambient.md#policies-on-a-global-service), as the plain translation does.
      const first = selectionDrift(copies, (d) => byDestination.get(d), ctx.valid);
      const firsts = new Map<string, FirstUnit<TrafficUnit>>();
      for (const name of candidates) {
        const destination = model.destinations.get(name);
        const previous = this.units.get(name);
        if (destination === undefined) {
          // Gone with a discovery change: its objects go, and so do the subsets it demanded.
          if (previous === undefined) continue;
          this.units.delete(name);
          world.sink.retire(`traffic/${name}`);
          if (previous.unit.demands.length > 0) changed.push(name);
          continue;
        }
        const drift = driftOf(first, name);
        const key = keyOf(name, drift);
        const kept = keptUnit(previous, key, forced.has(name));
        firsts.set(name, { key, unit: kept ?? applyTrafficToDestination(destination, byDestination.get(name) ?? NO_POLICIES, ctx, drift) });
      }
      const drift = invalidElsewhere(copies, first, byDestination, (d, p) => trafficRejected(firsts.get(d)?.unit, p));
      for (const [name, one] of firsts) {
        const previous = this.units.get(name);
        // Only a copy's drift can differ from its first pass; any other unit keeps its first key.
        const wanted = driftOf(copies.has(name) ? drift : first, name);
        const key = copies.has(name) ? keyOf(name, wanted) : one.key;
        const final = finalUnit(previous, one, key, forced.has(name), () =>
          applyTrafficToDestination(model.destinations.get(name) as Destination, byDestination.get(name) ?? NO_POLICIES, ctx, wanted),
        );
        if (final.same) continue;
        const { unit, first: firstKept } = final;
        this.units.set(name, { key, unit, ...(firstKept === undefined ? {} : { first: firstKept }), ...(previous?.sent ? { sent: previous.sent } : {}) });
        // A policy that left the unit changed itself or its selection, so its status is made anew anyway.
        for (const p of byDestination.get(name) ?? NO_POLICIES) touched.add(p.metadata.name);
        if (previous?.unit.demands.length || unit.demands.length) this.demanding.add(name);
        changed.push(name);
      }
    }
    const render = new Set(changed);
    if (changed.some((name) => this.demanding.has(name))) for (const target of this.redemand(model)) render.add(target);
    for (const name of render) this.render(name, model, world);
    return touched;
  }

  /** A policy's outcome and errors from the kept units; the policy is one of the last `apply`. */
  result(p: TrafficPolicy): PolicyResult {
    const { selection } = this.policies.get(p.metadata.name) as Selected<TrafficPolicy, TrafficSelection>;
    return trafficOutcome(p, selection, (d) => this.units.get(d)?.unit);
  }

  /**
   * Gathers the subsets every destination's policies demand of others again, in destination order as
   * a full translation does, and returns the destinations whose demands changed.
   */
  private redemand(model: Model): string[] {
    const demands = new SubsetDemands();
    for (const name of model.destinations.keys()) {
      if (!this.demanding.has(name)) continue;
      const unit = this.units.get(name)?.unit;
      if (unit === undefined || unit.demands.length === 0) {
        this.demanding.delete(name);
        continue;
      }
      for (const d of unit.demands) demands.add(d.destination, d.labels, d.policy);
    }
    const keys = new Map<string, string>();
    for (const name of demands.destinations()) keys.set(name, demands.key(name));
    const changed = [...new Set([...keys.keys(), ...this.demandKeys.keys()])].filter((name) => keys.get(name) !== this.demandKeys.get(name));
    this.demands = demands;
    this.demandKeys = keys;
    return changed;
  }

  /** Renders one destination's routing (again when its unit or its demanded subsets changed) and hands the sink what changed. */
  private render(name: string, model: Model, world: World): void {
    const entry = this.units.get(name);
    if (entry === undefined) return;
    const { unit } = entry;
    if (unit.osm !== undefined)
      entry.osm ??= { objects: [{ cluster: model.destinations.get(name)?.spec.cluster as string, draft: unit.osm }], certificates: [] };
    if (unit.istio !== undefined) {
      const demanded = this.demandKeys.get(name) ?? "";
      if (entry.render?.demands !== demanded)
        entry.render = {
          demands: demanded,
          contribution: { objects: keepUnchanged(entry.sent, renderTraffic(unit.istio, this.demands, model, world.plan)), certificates: [] },
        };
    }
    const contribution = entry.render?.contribution ?? entry.osm ?? NOTHING;
    if (entry.sent === contribution) return;
    world.sink.contribute(`traffic/${name}`, contribution);
    entry.sent = contribution;
  }
}

/**
 * The destinations whose units a discovery change reaches, whatever their keys: changed destinations
 * (and those whose workloads changed), the destinations of policies whose trafficShift or mirror
 * targets changed, when any workload changed those of policies with a sourceSelector, and when a
 * mesh's ambient workloads changed, those of policies without one that the mesh can call (its
 * callers' data planes decide whether such a policy can be applied: docs/ambient.md).
 */
function reached(change: DiscoveryChange, policies: Iterable<Selected<TrafficPolicy, TrafficSelection>>, model: Model, world: World): Set<string> {
  const forced = new Set(change.destinations);
  const ambientCallers = (name: string) => {
    const destination = model.destinations.get(name);
    if (destination === undefined) return false;
    for (const mesh of reachingMeshes([destination], model, world.plan)) if (change.ambientMeshes.has(mesh)) return true;
    return false;
  };
  for (const { policy, selection } of policies) {
    const scoped = (policy.spec.sourceSelector ?? []).length > 0;
    const reads = targetRefs(policy).some((ref) => change.refs.has(ref)) || (change.workloads && scoped);
    if (reads) for (const d of selection.destinations) forced.add(d);
    else if (!scoped && change.ambientMeshes.size > 0) for (const d of selection.destinations) if (ambientCallers(d)) forced.add(d);
  }
  return forced;
}

/** `cluster/namespace/name` of the services a TrafficPolicy's trafficShift and mirror name. */
function targetRefs(policy: TrafficPolicy): string[] {
  const features = policy.spec.policy;
  const refs = (features.trafficShift?.destinations ?? []).map((d) => refKey(d.kubeService));
  if (features.mirror !== undefined) refs.push(refKey(features.mirror.kubeService));
  return refs;
}
