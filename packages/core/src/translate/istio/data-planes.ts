import { dataPlaneOf } from "../../api/data-plane";
import type { DataPlaneMode, Destination, RoutingApi, Workload } from "../../api/index";
import { sortedUnique } from "../compare";
import { istioAtLeast } from "../gateway-api/routing-api";
import type { Model } from "../input/model";
import type { AccessPolicy } from "./authorization-policy";
import { type IstioSources, admittedWorkloads } from "./principals";

/**
 * What the objects meshplane generates today (VirtualService, DestinationRule, workload-selected
 * AuthorizationPolicy) can promise where Istio's ambient data plane runs (docs/ambient.md#what-translation-does).
 * VirtualServices and DestinationRules act in the caller's sidecar; ztunnel applies neither; a
 * sidecar calls a service straight, past its waypoint. A workload-selected AuthorizationPolicy is
 * enforced by the server's sidecar, or for an ambient pod by ztunnel, which sees no paths or methods
 * and, behind a waypoint, sees the waypoint as the caller.
 */

/** A workload a TrafficPolicy's sourceSelector picks that runs no sidecar. */
export interface OffSidecarCaller {
  name: string;
  mesh: string;
  dataPlane: Exclude<DataPlaneMode, "sidecar">;
}

/** How many workload names an error lists before it counts the rest. */
const NAMED = 3;

function names(list: readonly string[]): string {
  const sorted = sortedUnique(list);
  const shown = sorted.slice(0, NAMED).join(", ");
  return sorted.length > NAMED ? `${shown} and ${sorted.length - NAMED} more` : shown;
}

/** The workloads of `sources` (a sourceSelector's) that run no sidecar, in their order. */
export function offSidecarCallers(sources: readonly Workload[]): OffSidecarCaller[] {
  return sources.flatMap((w) => {
    const dataPlane = dataPlaneOf(w.spec);
    return dataPlane === "sidecar" ? [] : [{ name: w.metadata.name, mesh: w.spec.mesh, dataPlane }];
  });
}

/**
 * Why a TrafficPolicy's routes and DestinationRule would not reach some of its callers of
 * `destination` (an Istio destination whose mesh takes `api` routes), none when they would: sidecars
 * apply both kinds; ambient callers get them only from the service's waypoint, which takes Gateway
 * API routes (an HTTPRoute whose parent is the Service) and the DestinationRule. Its callers are
 * the workloads of `reaching` (meshes that can call the destination): with a sourceSelector,
 * those it picks (`selected`); without one, every workload there, of which those in the ambient
 * data plane are the ones it cannot reach (a workload outside the mesh is no caller a mesh policy
 * can configure). Picked workloads outside the mesh are named too: nothing would apply the policy
 * to their calls.
 */
export function callerDataPlaneErrors(
  destination: Destination,
  reaching: ReadonlySet<string>,
  selected: readonly OffSidecarCaller[] | undefined,
  model: Model,
  api: RoutingApi,
): string[] {
  const callers = selected?.filter((c) => reaching.has(c.mesh));
  const ambient =
    callers === undefined ? [...reaching].flatMap((m) => model.ambientWorkloads(m)) : callers.filter((c) => c.dataPlane === "ambient").map((c) => c.name);
  const outside = (callers ?? []).filter((c) => c.dataPlane === "none").map((c) => c.name);
  const errors: string[] = [];
  const who = (list: readonly string[]) =>
    selected === undefined
      ? `workloads ${names(list)} in Istio's ambient data plane can call this service`
      : `sourceSelector picks workloads ${names(list)} in Istio's ambient data plane`;
  const narrow = "; to apply the policy to sidecar callers only, select them with sourceSelector";
  const waypoint = destination.spec.waypoint;
  if (ambient.length > 0 && api === "GATEWAY_API" && waypoint === undefined) {
    errors.push(
      `${who(ambient)}: ztunnel carries their calls and applies no route or DestinationRule; the HTTPRoute takes effect on a waypoint: create a waypoint for this service (a Gateway of class istio-waypoint, and the label istio.io/use-waypoint on the Service or its namespace), or let meshplane create and bind one (routing.waypoints ON_DEMAND on the mesh's VirtualMesh) (docs/ambient.md#waypoints-on-demand)${narrow}`,
    );
  } else if (ambient.length > 0 && api === "ISTIO" && waypoint === undefined) {
    errors.push(
      `${who(ambient)}: ztunnel carries their calls and applies no VirtualService or DestinationRule; routing and traffic settings for ambient callers need a waypoint for this service and Gateway API output (routing.api GATEWAY_API on the mesh's VirtualMesh; with routing.waypoints ON_DEMAND there too, meshplane creates and binds the waypoint) (docs/ambient.md#waypoints-on-demand)${narrow}`,
    );
  } else if (ambient.length > 0 && api === "ISTIO") {
    errors.push(
      `${who(ambient)}: their calls go through waypoint ${waypoint?.namespace}/${waypoint?.name}, which takes Gateway API routes (a VirtualService on a waypoint is alpha in Istio): set routing.api GATEWAY_API on the mesh's VirtualMesh (docs/ambient.md)${narrow}`,
    );
  }
  if (outside.length > 0) {
    errors.push(
      `sourceSelector picks workloads ${names(outside)} outside the mesh (no sidecar, not in the ambient data plane): no proxy would apply this policy to their calls`,
    );
  }
  return errors;
}

/** The data planes of the pods behind `destination`: its backing workloads' when it reports `mixed`, else its own. */
function podDataPlanes(destination: Destination, model: Model): Set<DataPlaneMode> {
  const own = dataPlaneOf(destination.spec);
  if (own !== "mixed") return new Set([own]);
  return new Set(model.backingWorkloads(destination).map((w) => dataPlaneOf(w.spec)));
}

/**
 * Whether the proxies of `destination`'s pods see requests (paths, methods): none of them is in the
 * ambient data plane, where ztunnel enforces their AuthorizationPolicy at L4 only.
 */
export function podsSeeRequests(destination: Destination, model: Model): boolean {
  return !podDataPlanes(destination, model).has("ambient");
}

/** The waypoints calls addressed to a pod of `destination` go through: its backing workloads' (a waypoint for `workload` or `all`). */
function workloadWaypoints(destination: Destination, model: Model): string[] {
  const refs = model.backingWorkloads(destination).map((w) => w.spec.waypoint);
  return sortedUnique(refs.flatMap((r) => (r === undefined ? [] : [`${r.namespace}/${r.name}`])));
}

/** Whether a rule's sources are more than "any authenticated peer" (which a waypoint is too). */
function namesIdentities(sources: IstioSources): boolean {
  return !sources.principals.includes("*") && (sources.principals.length > 0 || sources.namespaces.length > 0);
}

/** The paths and methods an AccessPolicy asks for, by name: what only a proxy that sees the request can check. */
export function requestAttributes(policy: AccessPolicy): string[] {
  return [...(policy.spec.allowedPaths?.length ? ["paths"] : []), ...(policy.spec.allowedMethods?.length ? ["methods"] : [])];
}

/** The Istio release from which a waypoint takes an AuthorizationPolicy bound to a Service it serves (targetRefs). */
const WAYPOINT_POLICY_SINCE: [number, number] = [1, 22];

/**
 * Whether the pods of `destination`, behind a waypoint for the service, keep no rule of `policy`
 * for the callers that pass no waypoint (sidecars, calls addressed to a pod): it has paths or
 * methods and some pod is ambient, where ztunnel enforces the pods' policy and cannot check them.
 */
export function podsDropRule(policy: AccessPolicy, destination: Destination, model: Model): boolean {
  return destination.spec.waypoint !== undefined && requestAttributes(policy).length > 0 && !podsSeeRequests(destination, model);
}

/**
 * Why `policy`, with paths or methods, would refuse sidecar callers it admits on a destination
 * whose pods keep no rule of it (podsDropRule): a sidecar calls the pods straight, past the
 * service's waypoint (docs/ambient.md#accesspolicy). Its callers are the sidecar workloads of
 * `reaching` (meshes that can call the destination) whose identities `sources` admits — every one
 * there without a sourceSelector. None when there are none.
 */
function sidecarCallerErrors(policy: AccessPolicy, sources: IstioSources, reaching: ReadonlySet<string>, model: Model): string[] {
  const sidecars = admittedWorkloads(sources, reaching, model, (w) => dataPlaneOf(w.spec) === "sidecar").map((w) => w.metadata.name);
  if (sidecars.length === 0) return [];
  const l7 = requestAttributes(policy).join(" or ");
  const who =
    (policy.spec.sourceSelector ?? []).length === 0
      ? `sidecar workloads ${names(sidecars)} can call this service`
      : `sourceSelector names sidecar workloads ${names(sidecars)}`;
  return [
    `${who}: a sidecar calls the pods straight, past the service's waypoint, and the pods' AuthorizationPolicy keeps no rule on ${l7} (ztunnel enforces it on ambient pods and cannot see them), so the pods would refuse those calls; narrow the sourceSelector to callers in Istio's ambient data plane (their calls go through the waypoint), or drop ${l7} and rely on identities and ports (docs/ambient.md#accesspolicy)`,
  ];
}

/**
 * Why the AuthorizationPolicies meshplane generates for an AccessPolicy on `destination` (an Istio
 * destination that the meshes `reaching` can call) would not do what the policy says, none when
 * they would (docs/ambient.md#accesspolicy):
 * - pods outside the mesh: nothing enforces it;
 * - ambient pods, no waypoint for the service, and paths or methods: ztunnel cannot see them, and a
 *   rule that needs them makes ztunnel refuse every connection to those pods;
 * - a waypoint for the service on an Istio older than 1.22: it takes no policy bound to the Service;
 * - a waypoint for the service, ambient pods, paths or methods, and sidecar callers it admits: they
 *   pass no waypoint, and the pods cannot check the rule, so they refuse them;
 * - a waypoint for the pods' own traffic (calls addressed to a pod) and source identities, paths or
 *   methods: Istio applies a Service-bound policy to calls addressed to the Service only, and the
 *   waypoint calls the pods as itself, so neither it nor the pods can tell the caller.
 * A waypoint for the service is otherwise no error: the policy is enforced there, bound to the
 * Service, and the pods admit the waypoint.
 */
export function accessDataPlaneErrors(
  policy: AccessPolicy,
  sources: IstioSources,
  destination: Destination,
  reaching: ReadonlySet<string>,
  model: Model,
): string[] {
  const planes = podDataPlanes(destination, model);
  const errors: string[] = [];
  if (planes.has("none")) {
    errors.push("pods of this service are outside the mesh (no sidecar, not in the ambient data plane): nothing would enforce an AuthorizationPolicy on them");
  }
  const l7 = requestAttributes(policy).join(" or ");
  const waypoint = destination.spec.waypoint;
  if (planes.has("ambient") && l7 !== "" && waypoint === undefined) {
    errors.push(
      `pods of this service are in Istio's ambient data plane, where ztunnel enforces the AuthorizationPolicy and cannot see ${l7}: it would refuse every connection to them; a waypoint enforces rules on ${l7}: create one for this service (a Gateway of class istio-waypoint, and the label istio.io/use-waypoint on the Service or its namespace), or let meshplane create and bind one (routing.waypoints ON_DEMAND on the mesh's VirtualMesh, with Gateway API output) (docs/ambient.md#waypoints-on-demand)`,
    );
  }
  const mesh = model.meshOf(destination);
  if (waypoint !== undefined && !istioAtLeast(mesh, WAYPOINT_POLICY_SINCE)) {
    errors.push(
      `this service's waypoint ${waypoint.namespace}/${waypoint.name} enforces AccessPolicies through an AuthorizationPolicy bound to the Service (targetRefs), which Istio supports from 1.22; mesh ${mesh.metadata.name} runs Istio ${mesh.spec.version || "of an unknown version"}: upgrade Istio (docs/ambient.md)`,
    );
  }
  if (podsDropRule(policy, destination, model)) errors.push(...sidecarCallerErrors(policy, sources, reaching, model));
  const forPods = workloadWaypoints(destination, model);
  if (forPods.length > 0 && (namesIdentities(sources) || l7 !== "")) {
    errors.push(
      `calls addressed to pods of this service go through waypoint ${forPods.join(", ")}, which applies no policy bound to the Service (Istio binds it to calls addressed to the Service) and calls the pods as itself, so neither can tell the caller${l7 === "" ? "" : ` or check ${l7}`}; bind the workloads to no waypoint of their own (istio.io/use-waypoint: none on the pod template, or a waypoint for service traffic only) (docs/ambient.md)`,
    );
  }
  return errors;
}
