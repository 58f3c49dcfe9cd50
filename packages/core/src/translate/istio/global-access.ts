import type { Mesh } from "../../api/index";
import { istioAtLeast } from "../gateway-api/routing-api";
import type { Membership } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";

/** Every object globalAccessPolicy generates is named `global-access-control.<role>[.<waypoint or gateway>]` (docs/resources.md#generated-objects). */
export const GLOBAL_ACCESS_NAME = "global-access-control";
/** The deny-by-default of a mesh's workloads, in its root namespace. */
export const GLOBAL_ACCESS_WORKLOADS = generatedName(GLOBAL_ACCESS_NAME, "workloads");

/** The Gateway API group waypoints (Gateways of class istio-waypoint) belong to. */
const GATEWAY_GROUP = "gateway.networking.k8s.io";
const WAYPOINT_CLASS = "istio-waypoint";
/** The Istio release from which a policy in the root namespace bound to the GatewayClass istio-waypoint applies to every waypoint. */
const GATEWAY_CLASS_POLICY_SINCE: [number, number] = [1, 25];

/**
 * Deny-by-default on the mesh's waypoints (docs/ambient.md#accesspolicy): a waypoint reads no
 * workload-selected or namespace-wide policy, so the root namespace's deny-all does not reach it.
 * An allow-nothing bound to the waypoints makes a waypoint refuse what no AccessPolicy admits
 * there: from Istio 1.25 one policy in the root namespace bound to the GatewayClass istio-waypoint
 * (every waypoint, those created later too); before, one per waypoint discovery reports, bound to
 * its Gateway in its namespace. None where ztunnel does not run (no waypoint takes traffic).
 */
function waypointDenyAll(mesh: Mesh, apiVersion: string, parents: ObjectDraft["parents"]): ObjectDraft[] {
  if (mesh.spec.istio?.ambient === undefined) return [];
  const draft = (name: string, namespace: string, kind: string, target: string): ObjectDraft => ({
    apiVersion,
    kind: "AuthorizationPolicy",
    name,
    namespace,
    spec: { targetRefs: [{ group: GATEWAY_GROUP, kind, name: target }] },
    parents,
  });
  if (istioAtLeast(mesh, GATEWAY_CLASS_POLICY_SINCE)) {
    return [draft(generatedName(GLOBAL_ACCESS_NAME, "waypoints"), mesh.spec.namespace, "GatewayClass", WAYPOINT_CLASS)];
  }
  return (mesh.spec.istio.waypoints ?? []).map((w) => draft(generatedName(GLOBAL_ACCESS_NAME, "waypoint", w.name), w.namespace, "Gateway", w.name));
}

/**
 * globalAccessPolicy ENABLED (docs/resources.md#virtualmesh): an AuthorizationPolicy with an empty
 * spec in the mesh's Istio (root) namespace — it matches nothing, so every workload of the mesh
 * denies what no other ALLOW policy admits (ztunnel enforces it for ambient pods) —, the same for
 * the mesh's waypoints (`waypointDenyAll`), and an allow-all for each of the mesh's gateways, which
 * take traffic from outside the mesh (ingress) or pass mTLS through untouched (east-west) and would
 * otherwise be cut off.
 */
export function globalAccess(member: Membership, model: Model): ObjectDraft[] {
  const { mesh, virtualMesh } = member;
  const apiVersion = model.istioVersions(mesh.spec.cluster).security;
  const parents = [{ kind: "VirtualMesh" as const, name: virtualMesh.metadata.name }];
  const denyAll: ObjectDraft = { apiVersion, kind: "AuthorizationPolicy", name: GLOBAL_ACCESS_WORKLOADS, namespace: mesh.spec.namespace, spec: {}, parents };
  const gateways = (mesh.spec.istio?.gateways ?? []).map(
    (gateway): ObjectDraft => ({
      apiVersion,
      kind: "AuthorizationPolicy",
      name: generatedName(GLOBAL_ACCESS_NAME, "allow", gateway.name),
      namespace: gateway.namespace,
      spec: { selector: { matchLabels: gateway.selector }, action: "ALLOW", rules: [{}] },
      parents,
    }),
  );
  return [denyAll, ...waypointDenyAll(mesh, apiVersion, parents), ...gateways];
}
