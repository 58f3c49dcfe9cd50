import { type AccessSelection, type AccessUnit, applyAccessToDestination, selectAccessPolicy } from "./policy/access-policy";
import { canonicalJson } from "./output/canonical";
import { pushTo } from "./compare";
import type { AccessPolicy } from "./istio/authorization-policy";
import type { TrafficPolicy } from "./istio/destination-state";
import { SubsetDemands } from "./istio/subsets";
import { type Model, refKey, withPolicies } from "./input/model";
import type { PolicyOutcome } from "./status/outcome";
import { type Contribution, keepUnchanged } from "./output/sink";
import { type ResourceKey, resourceKeyOf } from "../identity";
import { type DiscoveryChange, type World, WorldBuilder } from "./engine/world";
import { Reporter } from "./status/reporter";
import { policyStatus } from "./status/status";
import { type TrafficSelection, type TrafficUnit, applyTrafficToDestination, renderTraffic, selectTrafficPolicy, trafficUnitKey } from "./policy/traffic-policy";
import type { TranslateInput, TranslateOutput } from "./types";
import type { ResourceStatus } from "../api/index";

/**
 * Translates one tenant's intent and discovered world into per-cluster mesh configuration and a
 * status for every VirtualMesh, TrafficPolicy and AccessPolicy (API.md §4–8). Pure: no I/O, clock
 * or randomness, and the same input — in any list order — gives byte-identical output. User
 * mistakes become statuses; only bugs (or input that upstream validation must have rejected, such as
 * two destinations with one name) throw, as TranslateError.
 */
export function translate(input: TranslateInput): TranslateOutput {
  return new Translator().translate(input);
}

/** One destination's routing as last translated, and what of it the sink holds. */
interface KeptTraffic {
  key: string;
  unit: TrafficUnit;
  /** The rendered Istio routing and the subset demands it was rendered with. */
  render?: { demands: string; contribution: Contribution };
  osm?: Contribution;
  /** What the sink was last given for this destination. */
  sent?: Contribution;
}

interface KeptAccess {
  key: string;
  unit: AccessUnit;
  /** What the sink was last given for this destination (the unit's objects, earlier equal drafts kept). */
  sent: Contribution;
}

/** A policy's status as last computed, valid while the policy and the units of its destinations are the same objects. */
interface KeptStatus {
  policy: TrafficPolicy | AccessPolicy;
  status: ResourceStatus;
}

const NOTHING: Contribution = { objects: [], certificates: [] };
const NO_POLICIES: TrafficPolicy[] = [];

/**
 * Translation that keeps its work between calls, for a worker that translates one tenant again and
 * again: `translate(input)` returns exactly what the function `translate` returns for `input`
 * (tested property), but when policies changed since the previous call it re-applies only the
 * destinations whose selecting policies changed, re-renders only those and the destinations whose
 * demanded subsets changed, recomputes the statuses of only the policies those touch, and re-sorts
 * and re-hashes only the chunks of the clusters whose objects changed. A discovery change (workloads
 * and destinations) redoes the units that read what changed (world.ts); a change to the clusters,
 * meshes, VirtualMeshes or their CAs starts afresh. Policies are told apart by content (metadata and
 * spec) and their acceptance numbers, not by object identity; the discovered world by identity of
 * its items, as a warm loader hands them out unchanged. A translation that throws leaves nothing
 * kept: the next call starts afresh.
 */
export class Translator {
  private readonly worlds = new WorldBuilder();
  private world: World | undefined;
  private trafficPolicies = new Map<string, Selected<TrafficPolicy, TrafficSelection>>();
  private accessPolicies = new Map<string, Selected<AccessPolicy, AccessSelection>>();
  /** Every destination's routing unit. */
  private readonly traffic = new Map<string, KeptTraffic>();
  /** Destinations whose units demand subsets of others (maybe a few that no longer do). */
  private readonly demanding = new Set<string>();
  private demands = new SubsetDemands();
  private demandKeys = new Map<string, string>();
  /** The access unit of each destination some AccessPolicy selects. */
  private readonly access = new Map<string, KeptAccess>();
  private statuses = new Map<ResourceKey, KeptStatus>();
  private readonly fingerprints = new WeakMap<object, { content: string; id: string }>();
  /** A short id per distinct policy content of the current input (so keys of units stay small), and the next id to give. */
  private ids = new Map<string, string>();
  private nextIds = new Map<string, string>();
  private idCounter = 0;

  translate(input: TranslateInput): TranslateOutput {
    try {
      return this.run(input);
    } catch (error) {
      // Half-updated units must never serve a later call.
      this.world = undefined;
      throw error;
    }
  }

  private run(input: TranslateInput): TranslateOutput {
    const { world, change } = this.worldFor(input);
    const model = withPolicies(world.model, input);
    const statuses: Record<ResourceKey, ResourceStatus> = { ...world.statuses };
    const kept = new Map<ResourceKey, KeptStatus>();
    const touchedTraffic = this.applyTraffic(model, world, change);
    for (const p of model.trafficPolicies) {
      const { selection } = this.trafficPolicies.get(p.metadata.name) as Selected<TrafficPolicy, TrafficSelection>;
      this.status(p, touchedTraffic, kept, statuses, () => trafficOutcome(p, selection, this.traffic));
    }
    const touchedAccess = this.applyAccess(model, world, change);
    for (const p of model.accessPolicies) {
      const { selection } = this.accessPolicies.get(p.metadata.name) as Selected<AccessPolicy, AccessSelection>;
      this.status(p, touchedAccess, kept, statuses, () => accessOutcome(p, selection, this.access));
    }
    this.statuses = kept;
    // Ids of contents no longer in the input are forgotten.
    this.ids = this.nextIds;
    this.nextIds = new Map();
    return { clusters: world.sink.finish(), statuses };
  }

  /** The policy's status: kept when neither it nor any destination unit it is in changed, else computed from its outcome. */
  private status(p: TrafficPolicy | AccessPolicy, touched: ReadonlySet<string>, kept: Map<ResourceKey, KeptStatus>, statuses: Record<ResourceKey, ResourceStatus>, outcome: () => { outcome: PolicyOutcome; reporter: Reporter }): void {
    const key = resourceKeyOf(p);
    const previous = this.statuses.get(key);
    let entry: KeptStatus;
    if (previous !== undefined && previous.policy === p && !touched.has(p.metadata.name)) entry = previous;
    else {
      const o = outcome();
      entry = { policy: p, status: policyStatus(p, o.outcome, o.reporter) };
    }
    kept.set(key, entry);
    statuses[key] = entry.status;
  }

  /** A short id of the policy's content (kind, metadata, spec): equal ids, equal content. */
  private fingerprint(policy: TrafficPolicy | AccessPolicy): string {
    let fp = this.fingerprints.get(policy);
    if (fp === undefined) {
      const content = canonicalJson({ kind: policy.kind, metadata: policy.metadata, spec: policy.spec });
      fp = { content, id: this.ids.get(content) ?? this.nextIds.get(content) ?? (++this.idCounter).toString(36) };
      this.fingerprints.set(policy, fp);
    }
    this.nextIds.set(fp.content, fp.id);
    return fp.id;
  }

  /** The world for `input`, and what changed in it since the last call (a fresh world forgets every unit). */
  private worldFor(input: TranslateInput): { world: World; change: DiscoveryChange | undefined } {
    const { world, change } = this.worlds.update(this.world, input);
    if (change.kind === "fresh") {
      this.trafficPolicies.clear();
      this.accessPolicies.clear();
      this.traffic.clear();
      this.demanding.clear();
      this.demands = new SubsetDemands();
      this.demandKeys.clear();
      this.access.clear();
      this.statuses.clear();
    }
    this.world = world;
    return { world, change: change.kind === "discovery" ? change.change : undefined };
  }

  /**
   * The policies of one kind as this call has them, with their selections (made again only when a
   * policy's content changed, or for all after a discovery change), the destinations whose units may
   * have changed — those any added, removed or changed policy selects or selected — and the policies
   * whose selection changed. A policy object that is not the one of the last call counts as changed
   * even with the same content, since its acceptance numbers may differ.
   */
  private policiesOf<P extends TrafficPolicy | AccessPolicy, S extends { destinations: string[] }>(
    policies: readonly P[],
    last: ReadonlyMap<string, Selected<P, S>>,
    select: (p: P) => S,
    reselect: boolean,
  ): { current: Map<string, Selected<P, S>>; dirty: Set<string>; reselected: Set<string> } {
    const current = new Map<string, Selected<P, S>>();
    const dirty = new Set<string>();
    const reselected = new Set<string>();
    for (const policy of policies) {
      const name = policy.metadata.name;
      const fp = this.fingerprint(policy);
      const before = last.get(name);
      const selection = before?.fp === fp && !reselect ? before.selection : select(policy);
      current.set(name, { policy, fp, selection });
      const moved = reselect && before?.fp === fp && canonicalJson(selection) !== canonicalJson(before.selection);
      if (moved) reselected.add(name);
      if (before?.policy === policy && !moved) continue;
      for (const d of selection.destinations) dirty.add(d);
      for (const d of before?.selection.destinations ?? []) dirty.add(d);
    }
    for (const [name, before] of last) if (!current.has(name)) for (const d of before.selection.destinations) dirty.add(d);
    return { current, dirty, reselected };
  }

  /**
   * TrafficPolicies: selections, then the unit of each destination a change may reach (kept when its
   * policies are the same), then rendering of the changed units and of the destinations whose
   * demanded subsets changed. Returns the names of the policies in units that changed.
   */
  private applyTraffic(model: Model, world: World, change: DiscoveryChange | undefined): Set<string> {
    const fresh = this.traffic.size === 0;
    const { current, dirty, reselected } = this.policiesOf(model.trafficPolicies, this.trafficPolicies, (p) => selectTrafficPolicy(p, model, world.plan), change !== undefined);
    this.trafficPolicies = current;
    const touched = new Set(reselected);
    // After a discovery change, a unit is made again (whatever its key) when what it reads changed:
    // its destination or that destination's workloads, a trafficShift or mirror target, or — for a
    // policy with a sourceSelector — any workload.
    const forced = new Set<string>();
    if (change !== undefined) {
      for (const name of change.destinations) forced.add(name);
      for (const { policy, selection } of current.values()) {
        const reads = targetRefs(policy).some((ref) => change.refs.has(ref)) || (change.workloads && (policy.spec.sourceSelector ?? []).length > 0);
        if (reads) for (const d of selection.destinations) forced.add(d);
      }
      for (const name of forced) dirty.add(name);
    }
    const changed: string[] = [];
    if (fresh || dirty.size > 0) {
      const byDestination = new Map<string, TrafficPolicy[]>();
      const invalid = new Set<TrafficPolicy>();
      for (const { policy, selection } of current.values()) {
        if (selection.errors.length > 0) invalid.add(policy);
        for (const d of selection.destinations) pushTo(byDestination, d, policy);
      }
      const valid = (p: TrafficPolicy) => !invalid.has(p);
      const callerSets = new Map<TrafficPolicy, ReadonlySet<string> | undefined>();
      const callers = (p: TrafficPolicy) => {
        if (!callerSets.has(p)) {
          const meshes = current.get(p.metadata.name)?.selection.callerMeshes;
          callerSets.set(p, meshes === undefined ? undefined : new Set(meshes));
        }
        return callerSets.get(p);
      };
      const ctx = { model, plan: world.plan, links: world.links, valid, callers };
      for (const name of fresh ? model.destinations.keys() : dirty) {
        const destination = model.destinations.get(name);
        const previous = this.traffic.get(name);
        if (destination === undefined) {
          // Gone with a discovery change: its objects go, and so do the subsets it demanded.
          if (previous === undefined) continue;
          this.traffic.delete(name);
          world.sink.retire(`traffic/${name}`);
          if (previous.unit.demands.length > 0) changed.push(name);
          continue;
        }
        const policies = byDestination.get(name) ?? NO_POLICIES;
        const key = trafficUnitKey(name, policies, (p) => this.fingerprint(p), valid);
        if (previous?.key === key && !forced.has(name)) continue;
        this.traffic.set(name, { key, unit: applyTrafficToDestination(destination, policies, ctx), ...(previous?.sent ? { sent: previous.sent } : {}) });
        // A policy that left the unit changed itself or its selection, so its status is made anew anyway.
        for (const p of policies) touched.add(p.metadata.name);
        if (previous?.unit.demands.length || this.traffic.get(name)?.unit.demands.length) this.demanding.add(name);
        changed.push(name);
      }
    }
    const render = new Set(changed);
    if (changed.some((name) => this.demanding.has(name))) for (const target of this.redemand(model)) render.add(target);
    for (const name of render) this.renderTraffic(name, model, world);
    return touched;
  }

  /**
   * Gathers the subsets every destination's policies demand of others again, in destination order as
   * a full translation does, and returns the destinations whose demands changed.
   */
  private redemand(model: Model): string[] {
    const demands = new SubsetDemands();
    for (const name of model.destinations.keys()) {
      if (!this.demanding.has(name)) continue;
      const unit = this.traffic.get(name)?.unit;
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
  private renderTraffic(name: string, model: Model, world: World): void {
    const entry = this.traffic.get(name);
    if (entry === undefined) return;
    const { unit } = entry;
    if (unit.osm !== undefined) entry.osm ??= { objects: [{ cluster: model.destinations.get(name)?.spec.cluster as string, draft: unit.osm }], certificates: [] };
    if (unit.istio !== undefined) {
      const demanded = this.demandKeys.get(name) ?? "";
      if (entry.render?.demands !== demanded) entry.render = { demands: demanded, contribution: { objects: keepUnchanged(entry.sent, renderTraffic(unit.istio, this.demands, model, world.plan)), certificates: [] } };
    }
    const contribution = entry.render?.contribution ?? entry.osm ?? NOTHING;
    if (entry.sent === contribution) return;
    world.sink.contribute(`traffic/${name}`, contribution);
    entry.sent = contribution;
  }

  /** AccessPolicies: selections, then the unit of each destination a change may reach, kept when its policies are the same. Returns the names of the policies in units that changed. */
  private applyAccess(model: Model, world: World, change: DiscoveryChange | undefined): Set<string> {
    const { current, dirty, reselected } = this.policiesOf(model.accessPolicies, this.accessPolicies, (p) => selectAccessPolicy(p, model), change !== undefined);
    this.accessPolicies = current;
    const touched = new Set(reselected);
    // After a discovery change: units of changed destinations, and — when workloads changed — of OSM
    // destinations, whose TrafficTargets name the service accounts of the cluster's workloads.
    const forced = new Set<string>();
    if (change !== undefined) {
      for (const name of change.destinations) forced.add(name);
      if (change.workloads) {
        for (const name of this.access.keys()) {
          const destination = model.destinations.get(name);
          if (destination === undefined || model.meshOf(destination).spec.type !== "istio") forced.add(name);
        }
      }
      for (const name of forced) dirty.add(name);
    }
    if (dirty.size === 0) return touched;
    const byDestination = new Map<string, AccessPolicy[]>();
    for (const { policy, selection } of current.values()) for (const d of selection.destinations) pushTo(byDestination, d, policy);
    const selectionOf = (p: AccessPolicy) => (current.get(p.metadata.name) as Selected<AccessPolicy, AccessSelection>).selection;
    for (const name of dirty) {
      const destination = model.destinations.get(name);
      const policies = byDestination.get(name);
      const previous = this.access.get(name);
      if (destination === undefined || policies === undefined) {
        if (previous !== undefined) world.sink.retire(`access/${name}`);
        this.access.delete(name);
        continue;
      }
      // A policy's content and whether it is valid (a discovery change can make an explicit ref miss).
      const key = policies.map((p) => `${this.fingerprint(p)}${selectionOf(p).errors.length > 0 ? "!" : ""}`).join("\u0001");
      if (previous?.key === key && !forced.has(name)) continue;
      const unit = applyAccessToDestination(destination, policies, selectionOf, model);
      const sent = { objects: keepUnchanged(previous?.sent, unit.objects.objects), certificates: [] };
      this.access.set(name, { key, unit, sent });
      for (const p of policies) touched.add(p.metadata.name);
      world.sink.contribute(`access/${name}`, sent);
    }
    return touched;
  }
}

/** `cluster/namespace/name` of the services a TrafficPolicy's trafficShift and mirror name. */
function targetRefs(policy: TrafficPolicy): string[] {
  const features = policy.spec.policy;
  const refs = (features.trafficShift?.destinations ?? []).map((d) => refKey(d.kubeService));
  if (features.mirror !== undefined) refs.push(refKey(features.mirror.kubeService));
  return refs;
}

/** A policy as the last call had it: the object, its content id and what it selects. */
interface Selected<P, S> {
  policy: P;
  fp: string;
  selection: S;
}

/** A TrafficPolicy's outcome on each destination it selects, and its errors, from the kept units. */
function trafficOutcome(p: TrafficPolicy, selection: TrafficSelection, units: ReadonlyMap<string, KeptTraffic>): { outcome: PolicyOutcome; reporter: Reporter } {
  const name = p.metadata.name;
  const key = resourceKeyOf(p);
  const reporter = new Reporter();
  for (const error of selection.errors) reporter.report(key, undefined, error);
  const outcome: PolicyOutcome = { destinations: new Map(), workloads: selection.workloads };
  for (const d of selection.destinations) {
    const unit = units.get(d)?.unit;
    const o = unit?.outcomes.get(name);
    if (unit === undefined || o === undefined) continue;
    outcome.destinations.set(d, o);
    for (const [policy, error] of unit.reports) if (policy === name) reporter.report(key, d, error);
  }
  return { outcome, reporter };
}

/** An AccessPolicy's outcome on each destination it selects, and its errors, from the kept units. */
function accessOutcome(p: AccessPolicy, selection: AccessSelection, units: ReadonlyMap<string, KeptAccess>): { outcome: PolicyOutcome; reporter: Reporter } {
  const name = p.metadata.name;
  const key = resourceKeyOf(p);
  const reporter = new Reporter();
  for (const error of selection.errors) reporter.report(key, undefined, error);
  const outcome: PolicyOutcome = { destinations: new Map() };
  for (const d of selection.destinations) {
    const unit = units.get(d)?.unit;
    if (unit === undefined) continue;
    outcome.destinations.set(d, { accepted: unit.accepted.has(name) });
    for (const [policy, error] of unit.reports) if (policy === name) reporter.report(key, d, error);
  }
  return { outcome, reporter };
}
