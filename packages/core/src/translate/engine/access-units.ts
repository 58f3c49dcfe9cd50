import { pushTo } from "../compare";
import type { Model } from "../input/model";
import type { AccessPolicy } from "../istio/authorization-policy";
import { type Contribution, keepUnchanged } from "../output/sink";
import type { Destination } from "../../api/index";
import { type AccessSelection, type AccessUnit, accessOutcome, applyAccessToDestination, selectAccessPolicy } from "../policy/access-policy";
import { type CopyDrift, accessRejected, invalidElsewhere, driftKey, driftOf, globalCopies, selectionDrift } from "../policy/global-copies";
import type { PolicyResult } from "../status/outcome";
import { type ContentIds, type Selected, selectionsOf } from "./selections";
import type { DiscoveryChange, World } from "./world";
import { type FirstUnit, finalUnit, keptUnit } from "./copies";

interface KeptAccess {
  key: string;
  unit: AccessUnit;
  /** What the sink was last given for this destination (the unit's objects, earlier equal drafts kept). */
  sent: Contribution;
  /** A global service's copy whose policies were applied again (docs/ambient.md#policies-on-a-global-service): the unit as first applied. */
  first?: FirstUnit<AccessUnit> | undefined;
}

/**
 * The AccessPolicies' selections and the access unit of each destination some AccessPolicy selects,
 * kept between calls: a call makes again the units a change reaches (their key — each selecting
 * policy's content id and validity — changed, or a discovery change reached what they read).
 */
export class AccessUnits {
  private policies = new Map<string, Selected<AccessPolicy, AccessSelection>>();
  private readonly units = new Map<string, KeptAccess>();
  /** The copies of global services the last call saw (their units are looked at on every call). */
  private copies = new Set<string>();

  /** Forgets every unit and selection, for a fresh world. */
  clear(): void {
    this.policies.clear();
    this.units.clear();
    this.copies.clear();
  }

  /** Selections, then the unit of each destination a change may reach, kept when its policies are the same. Returns the names of the policies in units that changed. */
  apply(model: Model, world: World, change: DiscoveryChange | undefined, ids: ContentIds): Set<string> {
    const { current, dirty, reselected } = selectionsOf(model.accessPolicies, this.policies, (p) => selectAccessPolicy(p, model), change !== undefined, ids);
    this.policies = current;
    const touched = new Set(reselected);
    // After a discovery change: units of changed destinations, and — when workloads changed — of OSM
    // destinations, whose TrafficTargets name the service accounts of the cluster's workloads, and
    // of those whose outcome read which workloads can call them (sidecar callers behind a waypoint).
    const forced = new Set<string>();
    if (change !== undefined) {
      for (const name of change.destinations) forced.add(name);
      if (change.workloads) {
        for (const [name, kept] of this.units) {
          const destination = model.destinations.get(name);
          if (destination === undefined || model.meshOf(destination).spec.type !== "istio" || kept.unit.readsCallers) forced.add(name);
        }
      }
      for (const name of forced) dirty.add(name);
    }
    const copies = globalCopies(world.plan);
    for (const name of [...copies.keys(), ...this.copies]) dirty.add(name);
    this.copies = new Set(copies.keys());
    if (dirty.size === 0) return touched;
    const byDestination = new Map<string, AccessPolicy[]>();
    for (const { policy, selection } of current.values()) for (const d of selection.destinations) pushTo(byDestination, d, policy);
    const selectionOf = (p: AccessPolicy) => (current.get(p.metadata.name) as Selected<AccessPolicy, AccessSelection>).selection;
    // A policy's content and whether it is valid (a discovery change can make an explicit ref miss), and the copy's drift.
    const keyOf = (policies: readonly AccessPolicy[], drift: CopyDrift) =>
      `${policies.map((p) => `${ids.of(p)}${selectionOf(p).errors.length > 0 ? "!" : ""}`).join("\u0001")}\u0002${driftKey(drift)}`;
    // First the units as the policies select them, then a global service's copies again where a
    // policy is INVALID on another copy (docs/ambient.md#policies-on-a-global-service), as the plain translation does.
    const first = selectionDrift(
      copies,
      (d) => byDestination.get(d),
      (p) => selectionOf(p).errors.length === 0,
    );
    const firsts = new Map<string, FirstUnit<AccessUnit>>();
    for (const name of dirty) {
      const destination = model.destinations.get(name);
      const policies = byDestination.get(name);
      const previous = this.units.get(name);
      if (destination === undefined || policies === undefined) {
        if (previous !== undefined) world.sink.retire(`access/${name}`);
        this.units.delete(name);
        continue;
      }
      const drift = driftOf(first, name);
      const key = keyOf(policies, drift);
      const kept = keptUnit(previous, key, forced.has(name));
      firsts.set(name, { key, unit: kept ?? applyAccessToDestination(destination, policies, selectionOf, model, world.plan, drift) });
    }
    const drift = invalidElsewhere(copies, first, byDestination, (d, p) => accessRejected(firsts.get(d)?.unit, p));
    for (const [name, one] of firsts) {
      const previous = this.units.get(name);
      const policies = byDestination.get(name) as AccessPolicy[];
      // Only a copy's drift can differ from its first pass; any other unit keeps its first key.
      const wanted = driftOf(copies.has(name) ? drift : first, name);
      const key = copies.has(name) ? keyOf(policies, wanted) : one.key;
      const final = finalUnit(previous, one, key, forced.has(name), () =>
        applyAccessToDestination(model.destinations.get(name) as Destination, policies, selectionOf, model, world.plan, wanted),
      );
      if (final.same) continue;
      const { unit, first: firstKept } = final;
      const sent = { objects: keepUnchanged(previous?.sent, unit.objects.objects), certificates: [] };
      this.units.set(name, { key, unit, sent, ...(firstKept === undefined ? {} : { first: firstKept }) });
      for (const p of policies) touched.add(p.metadata.name);
      world.sink.contribute(`access/${name}`, sent);
    }
    return touched;
  }

  /** A policy's outcome and errors from the kept units; the policy is one of the last `apply`. */
  result(p: AccessPolicy): PolicyResult {
    const { selection } = this.policies.get(p.metadata.name) as Selected<AccessPolicy, AccessSelection>;
    return accessOutcome(p, selection, (d) => this.units.get(d)?.unit);
  }
}
