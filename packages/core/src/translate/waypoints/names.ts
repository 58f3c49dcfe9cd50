import { z } from "zod";
import { parseAnnotationJson } from "../output/annotation-json";

/**
 * The names waypoints on demand use between core and the agent (docs/ambient.md#waypoints-on-demand).
 * They are part of the contract with the cluster: a waypoint meshplane generated, and the Services
 * it binds, are found by them.
 */

/** The waypoint meshplane generates in a namespace that needs one (one per namespace). */
export const ON_DEMAND_WAYPOINT = "meshplane-waypoint";

/** Istio's binding label: a Service carrying it sends its traffic through the named waypoint of its namespace. */
export const LABEL_USE_WAYPOINT = "istio.io/use-waypoint";

/**
 * On a generated waypoint: the JSON array of the names of the Services (in the waypoint's
 * namespace) the agent binds to it. The signed snapshot carries bindings this way, so a binding
 * exists only beside the waypoint it names.
 */
export const ANNOTATION_WAYPOINT_SERVICES = "meshplane.dev/waypoint-services";

/** The field manager of the agent's bindings: it owns the binding label on each bound Service and nothing else. */
export const BINDING_FIELD_MANAGER = "meshplane-waypoint-binding";

/** Service names (DNS-1035 labels), at most a namespace's worth. */
const serviceNames = z.array(z.string().regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/)).max(10_000);

/** The Service names ANNOTATION_WAYPOINT_SERVICES lists, or undefined when the text is not such a list (the agent then binds nothing for that waypoint). */
export function parseWaypointServices(text: string): string[] | undefined {
  return parseAnnotationJson(text, serviceNames);
}
