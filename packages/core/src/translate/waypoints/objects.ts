import { apiVersionOf } from "../output/generated-kinds";
import type { DraftSink, ObjectDraft } from "../output/sink";
import { ANNOTATION_WAYPOINT_SERVICES } from "./names";
import type { PlannedWaypoint } from "./plan";

/**
 * A planned waypoint as the object meshplane generates (docs/ambient.md#waypoints-on-demand): a
 * Gateway API Gateway of class istio-waypoint with Istio's one HBONE listener on 15008, as
 * `istioctl waypoint apply` writes it. It carries no `istio.io/waypoint-for` label: Istio reads an
 * unlabelled waypoint as one for services, which is what it serves. The Services to bind travel
 * on it, in ANNOTATION_WAYPOINT_SERVICES.
 */
export function waypointDraft(waypoint: PlannedWaypoint): ObjectDraft {
  return {
    apiVersion: apiVersionOf("Gateway", undefined, "gateway.networking.k8s.io"),
    kind: "Gateway",
    name: waypoint.name,
    namespace: waypoint.namespace,
    spec: { gatewayClassName: "istio-waypoint", listeners: [{ name: "mesh", port: 15008, protocol: "HBONE" }] },
    parents: waypoint.parents,
    annotations: { [ANNOTATION_WAYPOINT_SERVICES]: JSON.stringify(waypoint.services) },
  };
}

/** Adds every planned waypoint to its cluster. */
export function waypointObjects(waypoints: readonly PlannedWaypoint[], sink: DraftSink): void {
  for (const waypoint of waypoints) sink.add(waypoint.cluster, waypointDraft(waypoint));
}
