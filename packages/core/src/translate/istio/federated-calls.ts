import type { Destination, TrafficPolicyFeatures } from "../../api/index";
import type { FederationLinks, LinkProblem } from "../virtual-mesh/federation-links";
import type { FederationPlan } from "../virtual-mesh/federation-plan";
import { type Model, refKey } from "../input/model";
import { hostFrom, type View } from "./hosts";

/** Why a policy is not ACCEPTED on a destination although nothing in it is wrong: calls it configures cannot go through. */
export interface HeldBack {
  state: LinkProblem["state"];
  error: string;
}

interface Target {
  what: string;
  destination: Destination;
  /** A route target (trafficShift, or the destination itself), not a mirror. */
  primary: boolean;
}

/** What becomes of the calls, and why. */
function outlook(problem: LinkProblem): string {
  if (problem.state === "PENDING") return `wait for shared trust (the policy is applied here once it is issued): ${problem.reason}`;
  return `fail at the TLS handshake: ${problem.reason}`;
}

function targetsOf(features: TrafficPolicyFeatures, destination: Destination, model: Model): Target[] {
  const targets: Target[] = [];
  const shift = features.trafficShift?.destinations ?? [];
  if (shift.length === 0) targets.push({ what: "", destination, primary: true });
  for (const d of shift) {
    const target = model.destinationByRef(d.kubeService);
    if (target !== undefined) targets.push({ what: `trafficShift destination ${refKey(d.kubeService)}`, destination: target, primary: true });
  }
  const mirror = features.mirror === undefined ? undefined : model.destinationByRef(features.mirror.kubeService);
  if (mirror !== undefined && features.mirror !== undefined)
    targets.push({ what: `mirror destination ${refKey(features.mirror.kubeService)}`, destination: mirror, primary: false });
  return targets;
}

/**
 * The views where a policy has callers: every view without a sourceSelector; else the views of the
 * meshes its source workloads are in (`callers`, mesh names), the destination's own view for any
 * mesh of its cluster.
 */
function callerViews(views: readonly View[], callers: ReadonlySet<string> | undefined, destination: Destination, model: Model): View[] {
  if (callers === undefined) return [...views];
  const local = [...callers].some((m) => model.meshes.get(m)?.spec.cluster === destination.spec.cluster);
  return views.filter((v) => (v.federated ? callers.has(v.mesh.metadata.name) : local));
}

/**
 * Calls a policy configures on `destination` that its VirtualMesh cannot carry (docs/translation.md,
 * "Policies that rely on federation"). For each view where the policy has callers, each host its
 * routes send to there — its trafficShift destinations (or the destination itself) and its mirror
 * target — is checked when it is in another cluster:
 * - a call to a target the destination's own callers there do not already reach this way (another
 *   mesh than the destination's) that cannot go through holds the policy back: applying it would send
 *   working traffic into a failing handshake;
 * - calls to the destination's own mesh from a mesh it is federated to fail with or without the
 *   policy (the VirtualMesh's status says so); they hold the policy back only when no caller of the
 *   policy is left with a working route — its effect would be nowhere.
 * Callers the sourceSelector picks in meshes that cannot reach the destination at all, where a
 * VirtualMesh lists both meshes, hold it back too when they are all its callers. Targets that are not
 * reachable from a view are `viewErrors`' to report.
 */
export function federatedCallProblems(
  features: TrafficPolicyFeatures,
  destination: Destination,
  views: readonly View[],
  callers: ReadonlySet<string> | undefined,
  ctx: { model: Model; plan: FederationPlan; links: FederationLinks },
): HeldBack[] {
  const from = callerViews(views, callers, destination, ctx.model);
  if (from.length > 0) return ctx.links.clear ? [] : heldBack(features, destination, from, ctx);
  if (callers === undefined) return [];
  // Callers exist only in meshes the destination is not federated to: say why when a VirtualMesh lists both.
  const unreachable: HeldBack[] = [];
  for (const name of callers) {
    const mesh = ctx.model.meshes.get(name);
    if (mesh === undefined || mesh.spec.cluster === destination.spec.cluster) continue;
    const why = ctx.links.unreachable(mesh, destination);
    if (why !== undefined) unreachable.push({ state: "INVALID", error: `callers in mesh ${name} cannot reach this service: ${why}` });
  }
  return unreachable;
}

function heldBack(
  features: TrafficPolicyFeatures,
  destination: Destination,
  from: readonly View[],
  ctx: { model: Model; plan: FederationPlan; links: FederationLinks },
): HeldBack[] {
  const own = ctx.model.meshOf(destination);
  const targets = targetsOf(features, destination, ctx.model);
  // Targets in the destination's own mesh are local to its own view, whose callers then have a working route.
  if (targets.every((t) => t.destination.spec.mesh === own.metadata.name) && from.some((v) => !v.federated)) return [];
  const held: HeldBack[] = [];
  const cutOff: HeldBack[] = [];
  let reached = false;
  for (const view of from) {
    let working = false;
    for (const target of targets) {
      if (hostFrom(target.destination, view.mesh, ctx.plan) === undefined) continue;
      const problems = ctx.links.problems(view.mesh, target.destination);
      if (problems.length === 0) {
        working ||= target.primary;
        continue;
      }
      const caller = view.mesh.metadata.name;
      if (view.federated && target.destination.spec.mesh === own.metadata.name) {
        for (const p of problems)
          cutOff.push({ state: p.state, error: `callers in mesh ${caller} reach this service only through federation, whose calls ${outlook(p)}` });
      } else {
        for (const p of problems) held.push({ state: p.state, error: `${target.what}: calls to it from mesh ${caller} ${outlook(p)}` });
      }
    }
    reached ||= working;
  }
  if (held.length > 0) return held;
  return reached ? [] : cutOff;
}
