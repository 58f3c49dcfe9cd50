import type { Mesh, RoutingApi } from "../../api/index";
import { resourceKeyOf } from "../../identity";
import { compareStrings } from "../compare";
import { buildWorld } from "../input/model";
import { istioMinor } from "../output/versions";
import { Reporter } from "../status/reporter";
import type { TranslateInput } from "../types";
import { type Membership, resolveMemberships } from "../virtual-mesh/membership";

/** The Istio release from which meshplane generates Gateway API routes: ambient's first GA release. */
const GATEWAY_API_SINCE: [number, number] = [1, 24];

/**
 * A mesh as a plan translates it: with the output API the plan's `routing` asks for, over its
 * VirtualMesh's choice and the default (docs/api.md#plan-a-change). Only `withPlannedRouting` makes
 * one; the translate job never sees one.
 */
type PlannedMesh = Mesh & { readonly plannedRouting?: RoutingApi };

const plannedOf = (mesh: Mesh): RoutingApi | undefined => (mesh as PlannedMesh).plannedRouting;

/** Whether `mesh` runs an Istio at least `major.minor` (an unreadable version counts as old). */
export function istioAtLeast(mesh: Mesh, [major, minor]: readonly [number, number]): boolean {
  const parsed = istioMinor(mesh.spec.version);
  if (parsed === undefined || mesh.spec.type !== "istio") return false;
  return parsed[0] > major || (parsed[0] === major && parsed[1] >= minor);
}

/**
 * Whether discovery reports `mesh`'s cluster without the HTTPRoute CRD (`spec.istio.gatewayApi: {}`):
 * its API server would refuse every HTTPRoute. A report without the field (an older agent or chart)
 * is unknown, not absent (docs/ambient.md#retries-and-the-crd-channel).
 */
function httpRouteCrdAbsent(mesh: Mesh): boolean {
  const gatewayApi = mesh.spec.istio?.gatewayApi;
  return gatewayApi !== undefined && gatewayApi.httpRoute === undefined;
}

/**
 * A mesh's output API when no VirtualMesh chooses one: `GATEWAY_API` where ztunnel runs and the
 * cluster's HTTPRoute CRD is there or not reported, else `ISTIO`.
 */
export function defaultRoutingApi(mesh: Mesh): RoutingApi {
  return mesh.spec.istio?.ambient === undefined || httpRouteCrdAbsent(mesh) ? "ISTIO" : "GATEWAY_API";
}

/** What keeps `mesh` from `GATEWAY_API` output and how to remove it, or undefined when nothing does. */
function gatewayApiBlocker(mesh: Mesh): string | undefined {
  if (!istioAtLeast(mesh, GATEWAY_API_SINCE)) {
    return `mesh ${mesh.metadata.name} runs Istio ${mesh.spec.version || "of an unknown version"}, and meshplane generates Gateway API routes for Istio 1.24 and later; upgrade Istio`;
  }
  if (httpRouteCrdAbsent(mesh)) {
    return `cluster ${mesh.spec.cluster} of mesh ${mesh.metadata.name} has no HTTPRoute CRD (httproutes.gateway.networking.k8s.io), so its API server would refuse every HTTPRoute; install the Gateway API CRDs there (kubectl apply -f https://github.com/kubernetes-sigs/gateway-api/releases/download/<version>/standard-install.yaml)`;
  }
  return undefined;
}

/**
 * Why `mesh` cannot take `GATEWAY_API` output, as `setting` (what asked for it) and `instead` (the
 * other choice) say it; undefined when it can.
 */
function gatewayApiRefusal(mesh: Mesh, setting: string, instead: string): string | undefined {
  const blocker = gatewayApiBlocker(mesh);
  return blocker === undefined ? undefined : `${setting}: ${blocker} or ${instead}`;
}

/** Why the plan's `routing` cannot give `mesh` GATEWAY_API; undefined when it can. */
const plannedRefusal = (mesh: Mesh) => gatewayApiRefusal(mesh, "the plan's routing GATEWAY_API", `plan ISTIO for ${mesh.metadata.name}`);

/** The output API chosen for `mesh`, before its Istio is asked: `planned` (the plan's), else its VirtualMesh's, else the default. */
function chosenApi(mesh: Mesh, members: ReadonlyMap<string, Membership>, planned: RoutingApi | undefined): RoutingApi {
  return planned ?? members.get(mesh.metadata.name)?.virtualMesh.spec.routing?.api ?? defaultRoutingApi(mesh);
}

/** `chosen` where the mesh's Istio and cluster can serve it; `ISTIO` where they cannot. */
function served(mesh: Mesh, chosen: RoutingApi): RoutingApi {
  return chosen === "GATEWAY_API" && gatewayApiBlocker(mesh) !== undefined ? "ISTIO" : chosen;
}

/**
 * The objects a mesh's TrafficPolicies become (docs/ambient.md#the-output-api): its VirtualMesh's
 * `routing.api`, else the default — in a plan, the plan's `routing` first. A choice the mesh cannot
 * serve (its Istio is older than 1.24, or its cluster reports no HTTPRoute CRD) falls back to
 * `ISTIO` (the VirtualMesh is INVALID for the mesh, `reportRoutingApis`).
 */
export function routingApiOf(mesh: Mesh, members: ReadonlyMap<string, Membership>): RoutingApi {
  return served(mesh, chosenApi(mesh, members, plannedOf(mesh)));
}

/**
 * Reports, on each VirtualMesh, the member meshes whose Istio or cluster cannot serve the output API
 * it chooses (or, in a plan, the output API the plan asks for the member).
 */
export function reportRoutingApis(members: ReadonlyMap<string, Membership>, reporter: Reporter): void {
  for (const { mesh, virtualMesh } of members.values()) {
    const planned = plannedOf(mesh);
    if ((planned ?? virtualMesh.spec.routing?.api) !== "GATEWAY_API") continue;
    const refusal = planned === undefined ? gatewayApiRefusal(mesh, "routing.api GATEWAY_API", "set routing.api ISTIO") : plannedRefusal(mesh);
    if (refusal !== undefined) reporter.reportMesh(resourceKeyOf(virtualMesh), mesh.metadata.name, refusal);
  }
}

/** The output API a plan asks for, per mesh name (`POST /v1/plan`'s `routing`). */
export type PlannedRouting = Readonly<Record<string, RoutingApi>>;

/**
 * `input` as a plan with `routing` translates it: each mesh named there carries the output API asked
 * for, which `routingApiOf` takes over its VirtualMesh's choice and the default. Pure; `input` is not
 * changed (the meshes named are copies, so the worker's `Translator` would start afresh on them).
 */
export function withPlannedRouting(input: TranslateInput, routing: PlannedRouting): TranslateInput {
  if (Object.keys(routing).length === 0) return input;
  const meshes = input.meshes.map((mesh): Mesh => {
    const api = Object.hasOwn(routing, mesh.metadata.name) ? routing[mesh.metadata.name] : undefined;
    return api === undefined ? mesh : ({ ...mesh, plannedRouting: api } as PlannedMesh);
  });
  return { ...input, meshes };
}

/** What a plan's `routing` does to one mesh (docs/api.md#plan-a-change). */
export interface RoutingChange {
  cluster: string;
  /** The output API the mesh gets without the plan's `routing`. */
  from: RoutingApi;
  /** The output API it gets with it: the one asked for, or `ISTIO` when its Istio cannot serve that (INVALID). */
  to: RoutingApi;
  state: "ACCEPTED" | "INVALID";
  errors?: string[];
}

/**
 * Per mesh `routing` names, what the plan's choice changes in `input` (as it is without `routing`).
 * Meshes the translation would not see (unknown, in an unregistered cluster, a name two discovered
 * meshes share) and meshes that are not Istio are left out: the caller refuses those.
 */
export function routingChanges(input: TranslateInput, routing: PlannedRouting): Record<string, RoutingChange> {
  const model = buildWorld(input);
  const members = resolveMemberships(model, new Reporter());
  const changes: Record<string, RoutingChange> = {};
  for (const [name, asked] of Object.entries(routing).sort(([a], [b]) => compareStrings(a, b))) {
    const mesh = model.meshes.get(name);
    if (mesh === undefined || mesh.spec.type !== "istio") continue;
    const refusal = asked === "GATEWAY_API" ? plannedRefusal(mesh) : undefined;
    changes[name] = {
      cluster: mesh.spec.cluster,
      from: served(mesh, chosenApi(mesh, members, undefined)),
      to: served(mesh, asked),
      ...(refusal === undefined ? { state: "ACCEPTED" } : { state: "INVALID", errors: [refusal] }),
    };
  }
  return changes;
}
