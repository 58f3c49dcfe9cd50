import { GrantStep } from "../authoring/apply";
import { resourceKeyOf } from "../identity";
import { buildModel } from "./input/model";
import { Collector, OutputSink } from "./output/sink";
import { translateAccessPolicies } from "./policy/access-policy";
import { translateTrafficPolicies } from "./policy/traffic-policy";
import type { PolicyResult } from "./status/outcome";
import { policyStatus } from "./status/status";
import type { TranslateInput, TranslateOutput } from "./types";
import { federate } from "./virtual-mesh/federate";
import { exportObjects, sharedVirtualMeshObjects } from "./virtual-mesh/objects";
import { waypointObjects } from "./waypoints/objects";
import { WaypointPlanner } from "./waypoints/plan";

/**
 * Translates one tenant's intent and discovered world into per-cluster mesh configuration and a
 * status for every VirtualMesh, TrafficPolicy and AccessPolicy (docs/resources.md, from
 * "VirtualMesh" to "Generated objects"). Pure: no I/O, clock or randomness, and the same input — in any list order —
 * gives byte-identical output. User mistakes become statuses; only bugs (or input that upstream
 * validation must have rejected, such as two VirtualMeshes with one name) throw, as TranslateError.
 *
 * A plain composition that keeps nothing between calls. The worker's `Translator` (engine/) gives
 * exactly the same output while redoing only what changed since its previous call; the property
 * tests hold the two to each other (test/properties/incremental.test.ts).
 */
export function translate(given: TranslateInput): TranslateOutput {
  // Resources authored in clusters: clipped to their cluster's grant, or refused (docs/gitops.md#grants).
  const { input: original, refused } = new GrantStep().apply(given);
  // Waypoints on demand: destinations that need one carry the waypoint meshplane will create.
  const { input, waypoints } = new WaypointPlanner().plan(original);
  // The tenant's world and resources, filtered to registered clusters, sorted and indexed.
  const model = buildModel(input);
  // VirtualMeshes: which mesh belongs to which, trust domains, what is federated where, their statuses.
  const { plan, links, statuses } = federate(model);
  // Every generated object goes into one sink, unit by unit; it sorts and hashes each cluster's output.
  const sink = new OutputSink(model.tenant, model.clusters);
  const shared = new Collector();
  sharedVirtualMeshObjects(model, plan, shared);
  sink.contribute("virtual-meshes", shared);
  const planned = new Collector();
  waypointObjects(waypoints, planned);
  sink.contribute("waypoints", planned);
  for (const [name, exported] of plan.exports) {
    const objects = new Collector();
    exportObjects(exported, model, plan, objects);
    sink.contribute(`export/${name}`, objects);
  }
  // Policies, kind by kind: each selects destinations, is applied there, and reports how it fared.
  const traffic = translateTrafficPolicies(model, plan, links, sink);
  const access = translateAccessPolicies(model, plan, sink);
  // Statuses: the VirtualMeshes' first, then each policy's from how it fared and what went wrong.
  for (const p of model.trafficPolicies) {
    const { outcome, reporter } = traffic.get(p.metadata.name) as PolicyResult;
    statuses[resourceKeyOf(p)] = policyStatus(p, outcome, reporter);
  }
  for (const p of model.accessPolicies) {
    const { outcome, reporter } = access.get(p.metadata.name) as PolicyResult;
    statuses[resourceKeyOf(p)] = policyStatus(p, outcome, reporter);
  }
  for (const r of refused) statuses[resourceKeyOf(r.resource)] = r.status;
  return { clusters: sink.finish(), statuses };
}
