import { type AccessSelection, type AccessUnit, applyAccessToDestination, selectAccessPolicy } from "./access-policy";
import { canonicalJson } from "./canonical";
import { pushTo } from "./compare";
import { type FederationPlan, planFederation } from "./federation-plan";
import type { AccessPolicy } from "./istio/authorization-policy";
import type { TrafficPolicy } from "./istio/destination-state";
import { SubsetDemands } from "./istio/subsets";
import { type Membership, resolveMemberships } from "./membership";
import { type Model, buildWorld, withPolicies } from "./model";
import { emptyOutcome, type PolicyOutcome } from "./outcome";
import { Collector, type Contribution, OutputSink } from "./output";
import { type ResourceKey, resourceKey, resourceKeyOf } from "../identity";
import { Reporter } from "./reporter";
import { policyStatus, virtualMeshStatus } from "./status";
import { type TrafficSelection, type TrafficUnit, applyTrafficToDestination, renderTraffic, selectTrafficPolicy, trafficUnitKey } from "./traffic-policy";
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
  return new Translator().translate(input);
}

/** What discovery, the VirtualMeshes and their CAs make of a tenant: kept while none of them changes. */
interface World {
  /** The input lists it was built from (elements compared by identity) and the CA state as JSON. */
  from: { tenant: string; clusters: string[]; meshes: unknown[]; workloads: unknown[]; destinations: unknown[]; virtualMeshes: unknown[]; cas: string };
  model: Model;
  plan: FederationPlan;
  members: Map<string, Membership>;
  statuses: Record<ResourceKey, ResourceStatus>;
  objects: Contribution;
  sink: OutputSink;
}

interface KeptTraffic {
  key: string;
  unit: TrafficUnit;
  /** The rendered Istio routing and the subset demands it was rendered with. */
  render?: { demands: string; contribution: Contribution };
  osm?: Contribution;
}

const NOTHING: Contribution = { objects: [], certificates: [] };

/**
 * Translation that keeps its work between calls, for a worker that translates one tenant again and
 * again: `translate(input)` returns exactly what the function `translate` returns for `input`
 * (tested property), but when only TrafficPolicies and AccessPolicies changed since the previous
 * call it re-applies only the destinations whose selecting policies changed, re-renders only those
 * and the destinations whose demanded subsets changed, and re-sorts and re-hashes only the clusters
 * whose objects changed. Any change to discovery, the VirtualMeshes or their CAs starts afresh.
 * Policies are told apart by content (metadata and spec), not by object identity; the discovered
 * world by identity of its items, as a warm loader hands them out unchanged.
 */
export class Translator {
  private world: World | undefined;
  private trafficSelections = new Map<string, TrafficSelection>();
  private accessSelections = new Map<string, AccessSelection>();
  private traffic = new Map<string, KeptTraffic>();
  private access = new Map<string, { key: string; unit: AccessUnit }>();
  private readonly fingerprints = new WeakMap<object, { content: string; id: string }>();
  /** A short id per distinct policy content of the current input (so keys of units stay small), and the next id to give. */
  private ids = new Map<string, string>();
  private nextIds = new Map<string, string>();
  private idCounter = 0;

  translate(input: TranslateInput): TranslateOutput {
    const world = this.worldFor(input);
    const model = withPolicies(world.model, input);
    const reporter = new Reporter();
    const outcomes = new Map<ResourceKey, PolicyOutcome>();
    this.applyTraffic(model, world, reporter, outcomes);
    this.applyAccess(model, world, reporter, outcomes);
    world.sink.contribute("virtual-meshes", world.objects);

    const statuses: Record<ResourceKey, ResourceStatus> = { ...world.statuses };
    for (const p of [...model.trafficPolicies, ...model.accessPolicies]) {
      const key = resourceKeyOf(p);
      statuses[key] = policyStatus(p, outcomes.get(key) ?? emptyOutcome(), reporter);
    }
    // Ids of contents no longer in the input are forgotten.
    this.ids = this.nextIds;
    this.nextIds = new Map();
    return { clusters: world.sink.finish(), statuses };
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

  private worldFor(input: TranslateInput): World {
    const from = { tenant: input.tenant, clusters: [...input.clusters], meshes: [...input.meshes], workloads: [...input.workloads], destinations: [...input.destinations], virtualMeshes: [...input.virtualMeshes], cas: canonicalJson({ trust: input.trust ?? {}, certificates: input.certificates ?? {} }) };
    if (this.world !== undefined && sameWorld(this.world.from, from)) return this.world;
    const model = buildWorld(input);
    const reporter = new Reporter();
    const members = resolveMemberships(model, reporter);
    checkTrustDomains(members, reporter);
    const plan = planFederation(model, members, reporter);
    const objects = new Collector();
    translateVirtualMeshes(model, plan, objects);
    const statuses: Record<ResourceKey, ResourceStatus> = {};
    for (const vm of model.virtualMeshes) statuses[resourceKeyOf(vm)] = virtualMeshStatus(vm, members, reporter, model);
    this.trafficSelections.clear();
    this.accessSelections.clear();
    this.traffic.clear();
    this.access.clear();
    this.world = { from, model, plan, members, statuses, objects, sink: new OutputSink(model.tenant, model.clusters) };
    return this.world;
  }

  /** TrafficPolicies: selections, then per destination the unit (kept when its policies are the same), then rendering. */
  private applyTraffic(model: Model, world: World, reporter: Reporter, outcomes: Map<ResourceKey, PolicyOutcome>): void {
    const selections = new Map<string, TrafficSelection>();
    const byDestination = new Map<string, TrafficPolicy[]>();
    const invalid = new Set<TrafficPolicy>();
    for (const policy of model.trafficPolicies) {
      const fp = this.fingerprint(policy);
      const selection = this.trafficSelections.get(fp) ?? selectTrafficPolicy(policy, model, world.plan);
      selections.set(fp, selection);
      const key = resourceKeyOf(policy);
      for (const error of selection.errors) reporter.report(key, undefined, error);
      if (selection.errors.length > 0) invalid.add(policy);
      outcomes.set(key, { destinations: new Map(), workloads: selection.workloads });
      for (const d of selection.destinations) pushTo(byDestination, d, policy);
    }
    this.trafficSelections = selections;

    const valid = (p: TrafficPolicy) => !invalid.has(p);
    const kept = new Map<string, KeptTraffic>();
    const demands = new SubsetDemands();
    for (const destination of model.destinations.values()) {
      const name = destination.metadata.name;
      const policies = byDestination.get(name) ?? [];
      const key = trafficUnitKey(name, policies, (p) => this.fingerprint(p), valid);
      const previous = this.traffic.get(name);
      const entry = previous?.key === key ? previous : { key, unit: applyTrafficToDestination(destination, policies, valid, model, world.plan) };
      kept.set(name, entry);
      const { unit } = entry;
      for (const [policy, error] of unit.reports) reporter.report(resourceKey("TrafficPolicy", policy), name, error);
      for (const [policy, outcome] of unit.outcomes) outcomes.get(resourceKey("TrafficPolicy", policy))?.destinations.set(name, outcome);
      for (const d of unit.demands) demands.add(d.destination, d.labels, d.policy);
    }
    this.traffic = kept;

    for (const [name, entry] of kept) {
      const { unit } = entry;
      if (unit.osm !== undefined) entry.osm ??= { objects: [{ cluster: model.destinations.get(name)?.spec.cluster as string, draft: unit.osm }], certificates: [] };
      if (unit.istio !== undefined) {
        const demanded = demands.key(name);
        if (entry.render?.demands !== demanded) entry.render = { demands: demanded, contribution: { objects: renderTraffic(unit.istio, demands, model, world.plan), certificates: [] } };
      }
      world.sink.contribute(`traffic/${name}`, entry.render?.contribution ?? entry.osm ?? NOTHING);
    }
  }

  /** AccessPolicies: selections, then per destination the unit, kept when its policies are the same. */
  private applyAccess(model: Model, world: World, reporter: Reporter, outcomes: Map<ResourceKey, PolicyOutcome>): void {
    const selections = new Map<string, AccessSelection>();
    const byPolicy = new Map<AccessPolicy, AccessSelection>();
    const byDestination = new Map<string, AccessPolicy[]>();
    for (const policy of model.accessPolicies) {
      const fp = this.fingerprint(policy);
      const selection = this.accessSelections.get(fp) ?? selectAccessPolicy(policy, model);
      selections.set(fp, selection);
      byPolicy.set(policy, selection);
      const key = resourceKeyOf(policy);
      for (const error of selection.errors) reporter.report(key, undefined, error);
      outcomes.set(key, { destinations: new Map() });
      for (const d of selection.destinations) pushTo(byDestination, d, policy);
    }
    this.accessSelections = selections;

    const kept = new Map<string, { key: string; unit: AccessUnit }>();
    for (const [name, policies] of byDestination) {
      const destination = model.destinations.get(name);
      if (destination === undefined) continue;
      const key = policies.map((p) => this.fingerprint(p)).join("\u0001");
      const previous = this.access.get(name);
      const entry = previous?.key === key ? previous : { key, unit: applyAccessToDestination(destination, policies, (p) => byPolicy.get(p) as AccessSelection, model) };
      kept.set(name, entry);
      for (const [policy, error] of entry.unit.reports) reporter.report(resourceKey("AccessPolicy", policy), name, error);
      for (const p of policies) outcomes.get(resourceKeyOf(p))?.destinations.set(name, { accepted: entry.unit.accepted.has(p.metadata.name) });
      world.sink.contribute(`access/${name}`, entry.unit.objects);
    }
    this.access = kept;
  }
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameWorld(a: World["from"], b: World["from"]): boolean {
  return a.tenant === b.tenant && a.cas === b.cas && sameList(a.clusters, b.clusters) && sameList(a.meshes, b.meshes) && sameList(a.workloads, b.workloads) && sameList(a.destinations, b.destinations) && sameList(a.virtualMeshes, b.virtualMeshes);
}
