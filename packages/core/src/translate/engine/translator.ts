import type { ResourceStatus } from "../../api/index";
import { type ResourceKey, resourceKeyOf } from "../../identity";
import { withPolicies } from "../input/model";
import type { AccessPolicy } from "../istio/authorization-policy";
import type { TrafficPolicy } from "../istio/destination-state";
import type { PolicyResult } from "../status/outcome";
import { policyStatus } from "../status/status";
import type { TranslateInput, TranslateOutput } from "../types";
import { AccessUnits } from "./access-units";
import { ContentIds } from "./selections";
import { TrafficUnits } from "./traffic-units";
import { type DiscoveryChange, type World, WorldBuilder } from "./world";
import { Collector, type Contribution, keepUnchanged } from "../output/sink";
import { waypointObjects } from "../waypoints/objects";
import { WaypointPlanner } from "../waypoints/plan";
import { GrantStep } from "../../authoring/apply";

/** A policy's status as last computed, valid while the policy and the units of its destinations are the same objects. */
interface KeptStatus {
  policy: TrafficPolicy | AccessPolicy;
  status: ResourceStatus;
}

/**
 * Translation that keeps its work between calls, for a worker that translates one tenant again and
 * again: `translate(input)` returns exactly what the plain `translate` function returns for `input`
 * (tested property, test/properties/incremental.test.ts), but when policies changed since the
 * previous call it re-applies only the destinations whose selecting policies changed, re-renders
 * only those and the destinations whose demanded subsets changed, recomputes the statuses of only
 * the policies those touch, and re-sorts and re-hashes only the chunks of the clusters whose objects
 * changed. A discovery change (workloads and destinations) redoes the units that read what changed
 * (world.ts); a change to the clusters, meshes, VirtualMeshes or their CAs starts afresh. Policies
 * are told apart by content (metadata and spec) and their acceptance numbers, not by object
 * identity; the discovered world by identity of its items, as a warm loader hands them out
 * unchanged. A translation that throws leaves nothing kept: the next call starts afresh.
 */
export class Translator {
  private readonly worlds = new WorldBuilder();
  private world: World | undefined;
  private readonly traffic = new TrafficUnits();
  private readonly access = new AccessUnits();
  private statuses = new Map<ResourceKey, KeptStatus>();
  private readonly ids = new ContentIds();
  private readonly planner = new WaypointPlanner();
  private readonly grants = new GrantStep();
  private waypoints: Contribution | undefined;

  translate(input: TranslateInput): TranslateOutput {
    try {
      return this.run(input);
    } catch (error) {
      // Half-updated units must never serve a later call.
      this.world = undefined;
      throw error;
    }
  }

  private run(given: TranslateInput): TranslateOutput {
    // Resources authored in clusters: clipped to their cluster's grant, or refused (docs/gitops.md#grants).
    const { input: original, refused } = this.grants.apply(given);
    // Waypoints on demand: planned destinations are copies kept while their plan holds, so a
    // change of plan reaches the units as a discovery change of those destinations.
    const { input, waypoints } = this.planner.plan(original);
    const { world, change } = this.worldFor(input);
    const planned = new Collector();
    waypointObjects(waypoints, planned);
    this.waypoints = { objects: keepUnchanged(this.waypoints, planned.objects), certificates: [] };
    world.sink.contribute("waypoints", this.waypoints);
    const model = withPolicies(world.model, input);
    const statuses: Record<ResourceKey, ResourceStatus> = { ...world.statuses };
    const kept = new Map<ResourceKey, KeptStatus>();
    const touchedTraffic = this.traffic.apply(model, world, change, this.ids);
    for (const p of model.trafficPolicies) this.status(p, touchedTraffic, kept, statuses, () => this.traffic.result(p));
    const touchedAccess = this.access.apply(model, world, change, this.ids);
    for (const p of model.accessPolicies) this.status(p, touchedAccess, kept, statuses, () => this.access.result(p));
    for (const r of refused) statuses[resourceKeyOf(r.resource)] = r.status;
    this.statuses = kept;
    this.ids.turn();
    return { clusters: world.sink.finish(), statuses };
  }

  /** The policy's status: kept when neither it nor any destination unit it is in changed, else computed from its result. */
  private status(
    p: TrafficPolicy | AccessPolicy,
    touched: ReadonlySet<string>,
    kept: Map<ResourceKey, KeptStatus>,
    statuses: Record<ResourceKey, ResourceStatus>,
    result: () => PolicyResult,
  ): void {
    const key = resourceKeyOf(p);
    const previous = this.statuses.get(key);
    let entry: KeptStatus;
    if (previous !== undefined && previous.policy === p && !touched.has(p.metadata.name)) entry = previous;
    else {
      const { outcome, reporter } = result();
      entry = { policy: p, status: policyStatus(p, outcome, reporter) };
    }
    kept.set(key, entry);
    statuses[key] = entry.status;
  }

  /** The world for `input`, and what changed in it since the last call (a fresh world forgets every unit). */
  private worldFor(input: TranslateInput): { world: World; change: DiscoveryChange | undefined } {
    const { world, change } = this.worlds.update(this.world, input);
    if (change.kind === "fresh") {
      this.traffic.clear();
      this.access.clear();
      this.statuses.clear();
    }
    this.world = world;
    return { world, change: change.kind === "discovery" ? change.change : undefined };
  }
}
