import type { Mesh, RoutingApi } from "../../api/index";
import { resourceKeyOf } from "../../identity";
import { istioMinor } from "../output/versions";
import type { Reporter } from "../status/reporter";
import type { Membership } from "../virtual-mesh/membership";

/** The Istio release from which meshplane generates Gateway API routes: ambient's first GA release. */
const GATEWAY_API_SINCE: [number, number] = [1, 24];

/** Whether `mesh` runs an Istio at least `major.minor` (an unreadable version counts as old). */
export function istioAtLeast(mesh: Mesh, [major, minor]: readonly [number, number]): boolean {
  const parsed = istioMinor(mesh.spec.version);
  if (parsed === undefined || mesh.spec.type !== "istio") return false;
  return parsed[0] > major || (parsed[0] === major && parsed[1] >= minor);
}

/** A mesh's output API when no VirtualMesh chooses one: `GATEWAY_API` where ztunnel runs, else `ISTIO`. */
export function defaultRoutingApi(mesh: Mesh): RoutingApi {
  return mesh.spec.istio?.ambient === undefined ? "ISTIO" : "GATEWAY_API";
}

/** Why `mesh` cannot take `GATEWAY_API` output; undefined when it can. */
function gatewayApiRefusal(mesh: Mesh): string | undefined {
  if (istioAtLeast(mesh, GATEWAY_API_SINCE)) return undefined;
  return `routing.api GATEWAY_API: mesh ${mesh.metadata.name} runs Istio ${mesh.spec.version || "of an unknown version"}, and meshplane generates Gateway API routes for Istio 1.24 and later; upgrade Istio or set routing.api ISTIO`;
}

/**
 * The objects a mesh's TrafficPolicies become (docs/ambient.md#the-output-api): its VirtualMesh's
 * `routing.api`, else the default. A choice the mesh's Istio cannot serve falls back to `ISTIO`
 * (the VirtualMesh is INVALID for the mesh, `reportRoutingApis`).
 */
export function routingApiOf(mesh: Mesh, members: ReadonlyMap<string, Membership>): RoutingApi {
  const chosen = members.get(mesh.metadata.name)?.virtualMesh.spec.routing?.api ?? defaultRoutingApi(mesh);
  return chosen === "GATEWAY_API" && gatewayApiRefusal(mesh) !== undefined ? "ISTIO" : chosen;
}

/** Reports, on each VirtualMesh, the member meshes whose Istio cannot serve the output API it chooses. */
export function reportRoutingApis(members: ReadonlyMap<string, Membership>, reporter: Reporter): void {
  for (const { mesh, virtualMesh } of members.values()) {
    if (virtualMesh.spec.routing?.api !== "GATEWAY_API") continue;
    const refusal = gatewayApiRefusal(mesh);
    if (refusal !== undefined) reporter.reportMesh(resourceKeyOf(virtualMesh), mesh.metadata.name, refusal);
  }
}
