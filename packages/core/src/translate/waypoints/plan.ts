import { dataPlaneOf } from "../../api/data-plane";
import type { Destination, Mesh, StoredResource } from "../../api/index";
import { compareStrings } from "../compare";
import { routingApiOf } from "../gateway-api/routing-api";
import { type Model, buildModel } from "../input/model";
import { selectDestinations } from "../input/selectors";
import { canonicalJson } from "../output/canonical";
import type { Parent } from "../output/sink";
import { Reporter } from "../status/reporter";
import type { TranslateInput } from "../types";
import { resolveMemberships } from "../virtual-mesh/membership";
import { ON_DEMAND_WAYPOINT } from "./names";
import { markPlanned } from "./planned";

/** A waypoint meshplane creates: where, the Services it binds, and what asked for it. */
export interface PlannedWaypoint {
  cluster: string;
  namespace: string;
  name: string;
  /** Names of the Services in `namespace` bound to it, sorted. */
  services: string[];
  /**
   * The policies that need the waypoint: it exists while one of them does, and what goes wrong with
   * it (a binding refused) shows in their statuses.
   */
  parents: Parent[];
}

/** The input as translation sees it (destinations with their planned waypoints) and the waypoints to create. */
export interface WaypointPlan {
  input: TranslateInput;
  waypoints: PlannedWaypoint[];
}

/**
 * Meshes whose VirtualMesh sets `routing.waypoints: ON_DEMAND` (and names them in `waypointMeshes`
 * when it sets that), where ztunnel runs and the output API is GATEWAY_API, each with its VirtualMesh.
 */
function onDemandMeshes(model: Model): Map<string, StoredResource<"VirtualMesh">> {
  const out = new Map<string, StoredResource<"VirtualMesh">>();
  const members = resolveMemberships(model, new Reporter());
  for (const { mesh, virtualMesh } of members.values()) {
    const routing = virtualMesh.spec.routing;
    if (routing?.waypoints !== "ON_DEMAND") continue;
    if (routing.waypointMeshes !== undefined && !routing.waypointMeshes.some((m) => m.name === mesh.metadata.name)) continue;
    if (mesh.spec.istio?.ambient === undefined || routingApiOf(mesh as Mesh, members) !== "GATEWAY_API") continue;
    out.set(mesh.metadata.name, virtualMesh);
  }
  return out;
}

/** Whether `destination` takes traffic in the ambient data plane and has no waypoint: an L7 feature on it needs one. */
function lacksWaypoint(destination: Destination): boolean {
  const plane = dataPlaneOf(destination.spec);
  return destination.spec.waypoint === undefined && (plane === "ambient" || plane === "mixed");
}

/**
 * Which destinations need a waypoint, and why: those without one, in the ambient data plane of an
 * ON_DEMAND mesh, that a TrafficPolicy selects (its routes take effect on a waypoint only) or an
 * AccessPolicy with paths or methods selects (ztunnel sees no requests). Destination name → parents.
 */
function demand(model: Model, meshes: ReadonlyMap<string, StoredResource<"VirtualMesh">>): Map<string, Parent[]> {
  const out = new Map<string, Parent[]>();
  const need = (destinations: readonly Destination[], parent: Parent) => {
    for (const d of destinations) {
      if (!meshes.has(d.spec.mesh) || !lacksWaypoint(d)) continue;
      let parents = out.get(d.metadata.name);
      if (parents === undefined) out.set(d.metadata.name, (parents = []));
      parents.push(parent);
    }
  };
  for (const p of model.trafficPolicies) need(selectDestinations(model, p.spec.destinationSelector).matched, { kind: "TrafficPolicy", name: p.metadata.name });
  for (const p of model.accessPolicies) {
    if ((p.spec.allowedPaths?.length ?? 0) === 0 && (p.spec.allowedMethods?.length ?? 0) === 0) continue;
    need(selectDestinations(model, p.spec.destinationSelector).matched, { kind: "AccessPolicy", name: p.metadata.name });
  }
  return out;
}

/** What a plan is made of: the discovered lists (items compared by identity) and the policies' part in it. */
interface PlanInputs {
  clusters: readonly unknown[];
  meshes: readonly unknown[];
  virtualMeshes: readonly unknown[];
  destinations: readonly unknown[];
  policies: string;
}

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function samePlanInputs(a: PlanInputs, b: PlanInputs): boolean {
  return (
    a.policies === b.policies &&
    sameList(a.clusters, b.clusters) &&
    sameList(a.meshes, b.meshes) &&
    sameList(a.virtualMeshes, b.virtualMeshes) &&
    sameList(a.destinations, b.destinations)
  );
}

/**
 * Plans waypoints on demand (docs/ambient.md#waypoints-on-demand) over one translation's input:
 * each destination that needs a waypoint gets, as its `spec.waypoint`, the waypoint meshplane will
 * create in its namespace (a copy, marked planned: `waypointPlanned`), so every translator reads it
 * as it reads a discovered one; the waypoints come back with the Services each binds. A copy is
 * kept per destination while its plan stays the same, so the incremental engine sees an unchanged
 * destination as the same object; the whole plan is kept while what it reads is the same (the
 * clusters, meshes, VirtualMeshes and destinations as objects, each policy's name and
 * destinationSelector, and whether an AccessPolicy has paths or methods), so a policy edit that
 * changes none of that costs no model. Without an ON_DEMAND VirtualMesh the input is returned as it is.
 */
export class WaypointPlanner {
  private readonly copies = new WeakMap<Destination, Destination>();
  /** Each policy's part in the plan, as text, by policy object. */
  private readonly parts = new WeakMap<object, string>();
  private last: { from: PlanInputs; destinations: Destination[]; waypoints: PlannedWaypoint[] } | undefined;

  plan(input: TranslateInput): WaypointPlan {
    if (!input.virtualMeshes.some((vm) => vm.spec.routing?.waypoints === "ON_DEMAND")) {
      this.last = undefined;
      return { input, waypoints: [] };
    }
    const from = this.inputsOf(input);
    const last = this.last;
    if (last !== undefined && samePlanInputs(last.from, from)) return { input: { ...input, destinations: last.destinations }, waypoints: last.waypoints };
    const plan = this.fresh(input);
    this.last = { from, destinations: plan.input.destinations, waypoints: plan.waypoints };
    return plan;
  }

  private inputsOf(input: TranslateInput): PlanInputs {
    const part = (p: TranslateInput["trafficPolicies"][number] | TranslateInput["accessPolicies"][number], make: () => string) => {
      let text = this.parts.get(p);
      if (text === undefined) this.parts.set(p, (text = make()));
      return text;
    };
    const traffic = input.trafficPolicies.map((p) => part(p, () => `T${p.metadata.name}\u0000${canonicalJson(p.spec.destinationSelector ?? null)}`));
    const access = input.accessPolicies.map((p) =>
      part(p, () => {
        const l7 = (p.spec.allowedPaths?.length ?? 0) > 0 || (p.spec.allowedMethods?.length ?? 0) > 0;
        return l7 ? `A${p.metadata.name}\u0000${canonicalJson(p.spec.destinationSelector ?? null)}` : "";
      }),
    );
    return {
      clusters: input.clusters,
      meshes: input.meshes,
      virtualMeshes: input.virtualMeshes,
      destinations: input.destinations,
      policies: [...traffic, ...access].join("\u0001"),
    };
  }

  private fresh(input: TranslateInput): WaypointPlan {
    const model = buildModel(input);
    const meshes = onDemandMeshes(model);
    const needed = meshes.size === 0 ? new Map<string, Parent[]>() : demand(model, meshes);
    if (needed.size === 0) return { input, waypoints: [] };
    const planned = new Map<Destination, Destination>();
    const byNamespace = new Map<string, PlannedWaypoint>();
    for (const [name, parents] of needed) {
      const d = model.destinations.get(name) as Destination;
      planned.set(d, this.copyOf(d));
      const key = `${d.spec.cluster}/${d.spec.namespace}`;
      let waypoint = byNamespace.get(key);
      if (waypoint === undefined)
        byNamespace.set(key, (waypoint = { cluster: d.spec.cluster, namespace: d.spec.namespace, name: ON_DEMAND_WAYPOINT, services: [], parents: [] }));
      waypoint.services.push(d.spec.name);
      waypoint.parents.push(...parents);
    }
    const waypoints = [...byNamespace.values()]
      .map((w) => ({ ...w, services: [...new Set(w.services)].sort(compareStrings) }))
      .sort((a, b) => compareStrings(a.cluster, b.cluster) || compareStrings(a.namespace, b.namespace));
    return { input: { ...input, destinations: input.destinations.map((d) => planned.get(d) ?? d) }, waypoints };
  }

  /** `destination` with the namespace's on-demand waypoint as its own, the same copy every time. */
  private copyOf(destination: Destination): Destination {
    let copy = this.copies.get(destination);
    if (copy === undefined) {
      copy = markPlanned({ ...destination, spec: { ...destination.spec, waypoint: { name: ON_DEMAND_WAYPOINT, namespace: destination.spec.namespace } } });
      this.copies.set(destination, copy);
    }
    return copy;
  }
}
