import type { Destination, ResourceStatus, Workload } from "../../api/index";
import type { ResourceKey } from "../../identity";
import { type Model, buildWorld, refKey } from "../input/model";
import { canonicalJson } from "../output/canonical";
import { Collector, type Contribution, OutputSink, keepUnchanged } from "../output/sink";
import type { TranslateInput } from "../types";
import { federate } from "../virtual-mesh/federate";
import type { FederationLinks } from "../virtual-mesh/federation-links";
import type { FederatedExport, FederationPlan } from "../virtual-mesh/federation-plan";
import { exportObjects, sharedVirtualMeshObjects } from "../virtual-mesh/objects";

/** The input lists a world was built from (items compared by identity) and the CA state as JSON. */
interface WorldInputs {
  tenant: string;
  clusters: string[];
  meshes: unknown[];
  workloads: unknown[];
  destinations: unknown[];
  virtualMeshes: unknown[];
  cas: string;
}

/**
 * What discovery, the VirtualMeshes and their CAs make of a tenant: the model, the federation plan,
 * the VirtualMeshes' statuses and objects, and the sink that holds every unit's objects.
 */
export interface World {
  from: WorldInputs;
  model: Model;
  plan: FederationPlan;
  /** Whether the VirtualMeshes can carry a call from one mesh to another, and why not. */
  links: FederationLinks;
  statuses: Record<ResourceKey, ResourceStatus>;
  sink: OutputSink;
  shared: Contribution;
  /** Each federated destination's own objects, with what they were made from. */
  exports: Map<string, { key: string; contribution: Contribution }>;
}

/**
 * How the discovered workloads and destinations changed between two worlds whose clusters, meshes,
 * VirtualMeshes and CAs are the same: what the policy units must look at again.
 */
export interface DiscoveryChange {
  /** Destinations added, removed or replaced, and those whose backing workloads changed, by name. */
  destinations: Set<string>;
  /** `cluster/namespace/name` of those destinations (trafficShift and mirror targets name them so). */
  refs: Set<string>;
  /** Whether any workload was added, removed or replaced (source selectors, OSM service accounts). */
  workloads: boolean;
  /** Meshes whose workloads in Istio's ambient data plane changed (every caller of a policy without a sourceSelector). */
  ambientMeshes: Set<string>;
}

/** What `WorldBuilder.update` found: the same world, a fresh one, or one whose discovery changed. */
export type WorldChange = { kind: "same" } | { kind: "fresh" } | { kind: "discovery"; change: DiscoveryChange };

function sameList(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function inputsOf(input: TranslateInput): WorldInputs {
  return {
    tenant: input.tenant,
    clusters: [...input.clusters],
    meshes: [...input.meshes],
    workloads: [...input.workloads],
    destinations: [...input.destinations],
    virtualMeshes: [...input.virtualMeshes],
    cas: canonicalJson({ trust: input.trust ?? {}, certificates: input.certificates ?? {} }),
  };
}

/** Names whose item is new, gone or another object between two maps. */
function changedNames<T>(before: ReadonlyMap<string, T>, after: ReadonlyMap<string, T>): Set<string> {
  const out = new Set<string>();
  for (const [name, item] of after) if (before.get(name) !== item) out.add(name);
  for (const name of before.keys()) if (!after.has(name)) out.add(name);
  return out;
}

function discoveryChange(before: Model, after: Model): DiscoveryChange {
  const workloads = changedNames<Workload>(before.workloads, after.workloads);
  const destinations = changedNames<Destination>(before.destinations, after.destinations);
  if (workloads.size > 0) {
    for (const [name, d] of [...before.destinations, ...after.destinations]) if (d.spec.workloads.some((w) => workloads.has(w))) destinations.add(name);
  }
  const refs = new Set<string>();
  for (const name of destinations) {
    for (const d of [before.destinations.get(name), after.destinations.get(name)]) if (d !== undefined) refs.add(refKey(d.spec));
  }
  return { destinations, refs, workloads: workloads.size > 0, ambientMeshes: ambientMeshes(workloads, before, after) };
}

/** Meshes of the `changed` workloads whose list of ambient workloads differs between the two models. */
function ambientMeshes(changed: ReadonlySet<string>, before: Model, after: Model): Set<string> {
  const meshes = new Set<string>();
  for (const name of changed) for (const w of [before.workloads.get(name), after.workloads.get(name)]) if (w !== undefined) meshes.add(w.spec.mesh);
  for (const mesh of meshes) if (before.ambientWorkloads(mesh).join("\u0000") === after.ambientWorkloads(mesh).join("\u0000")) meshes.delete(mesh);
  return meshes;
}

/**
 * Identity numbers for objects (a federated export's key names its destination and VirtualMesh by
 * them): the same object, the same number, for as long as it lives.
 */
class Identities {
  private readonly ids = new WeakMap<object, number>();
  private next = 0;

  of(item: object): number {
    let id = this.ids.get(item);
    if (id === undefined) this.ids.set(item, (id = ++this.next));
    return id;
  }
}

/**
 * Builds worlds, keeping what a discovery change leaves alone: when only workloads and destinations
 * changed (the clusters, meshes, VirtualMeshes and CAs are the same objects), the sink is kept, each
 * federated destination whose export is unchanged keeps its objects, and the change says which
 * destinations the policy units must look at again. Anything else starts a fresh world.
 */
export class WorldBuilder {
  private readonly identities = new Identities();
  /** Text of lists many exports share (a mesh's gateways, a selector's targets), made once per list. */
  private readonly texts = new WeakMap<object, string>();

  update(previous: World | undefined, input: TranslateInput): { world: World; change: WorldChange } {
    const from = inputsOf(input);
    if (previous !== undefined && sameWorld(previous.from, from)) return { world: previous, change: { kind: "same" } };
    const keepSink =
      previous !== undefined &&
      previous.from.tenant === from.tenant &&
      previous.from.cas === from.cas &&
      sameList(previous.from.clusters, from.clusters) &&
      sameList(previous.from.meshes, from.meshes) &&
      sameList(previous.from.virtualMeshes, from.virtualMeshes);
    const model = buildWorld(input);
    const { plan, links, statuses } = federate(model);
    const base = keepSink ? previous : undefined;
    const sink = base?.sink ?? new OutputSink(model.tenant, model.clusters);
    const collected = new Collector();
    sharedVirtualMeshObjects(model, plan, collected);
    const shared = { objects: keepUnchanged(base?.shared, collected.objects), certificates: collected.certificates };
    sink.contribute("virtual-meshes", shared);
    const exports = new Map<string, { key: string; contribution: Contribution }>();
    for (const [name, exported] of plan.exports) {
      const key = this.exportKey(exported, model);
      const kept = base?.exports.get(name);
      if (kept?.key === key) {
        exports.set(name, kept);
        continue;
      }
      const objects = new Collector();
      exportObjects(exported, model, plan, objects);
      const contribution = { objects: keepUnchanged(kept?.contribution, objects.objects), certificates: [] };
      exports.set(name, { key, contribution });
      sink.contribute(`export/${name}`, contribution);
    }
    for (const name of base?.exports.keys() ?? []) if (!exports.has(name)) sink.retire(`export/${name}`);
    const world: World = { from, model, plan, links, statuses, sink, shared, exports };
    if (base === undefined) return { world, change: { kind: "fresh" } };
    const change = discoveryChange(base.model, model);
    // A destination whose export changed renders other views and hosts: its units are looked at again too.
    for (const name of new Set([...exports.keys(), ...base.exports.keys()])) if (exports.get(name) !== base.exports.get(name)) change.destinations.add(name);
    return { world, change: { kind: "discovery", change } };
  }

  private text(list: object, make: () => string): string {
    let text = this.texts.get(list);
    if (text === undefined) this.texts.set(list, (text = make()));
    return text;
  }

  /**
   * What a federated destination's own objects are made of: the destination and its backing
   * workloads (their service accounts are the host's subjectAltNames), its VirtualMesh, its address,
   * the meshes it goes to and its mesh's east-west gateways (the meshes themselves are the same
   * objects whenever an export is kept).
   */
  private exportKey(exported: FederatedExport, model: Model): string {
    const workloads = model.backingWorkloads(exported.destination).map((w) => this.identities.of(w));
    return [
      this.identities.of(exported.destination),
      workloads.join(","),
      this.identities.of(exported.virtualMesh),
      exported.address,
      exported.host,
      this.text(exported.targetNames, () => [...exported.targetNames].join(",")),
      this.text(exported.gateways, () => canonicalJson(exported.gateways)),
    ].join("\u0001");
  }
}

function sameWorld(a: WorldInputs, b: WorldInputs): boolean {
  return (
    a.tenant === b.tenant &&
    a.cas === b.cas &&
    sameList(a.clusters, b.clusters) &&
    sameList(a.meshes, b.meshes) &&
    sameList(a.workloads, b.workloads) &&
    sameList(a.destinations, b.destinations) &&
    sameList(a.virtualMeshes, b.virtualMeshes)
  );
}
