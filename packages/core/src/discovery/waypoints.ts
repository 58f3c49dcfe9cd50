import type { Mesh, Waypoint } from "../api/discovery";
import { ownValue } from "../own-keys";
import { ambientCapable } from "./ambient";
import { type ClusterIndex, compareStrings } from "./cluster-index";
import type { KubeGateway, LabelSelector, StringMap } from "./kube";
import { istioMeshFor } from "./mesh-choice";
import { ISTIO_REV_LABEL } from "./istio-mesh";

/** The GatewayClass of Istio's waypoints. */
export const WAYPOINT_CLASS = "istio-waypoint";
const WAYPOINT_FOR_LABEL = "istio.io/waypoint-for";
const USE_WAYPOINT_LABEL = "istio.io/use-waypoint";
const USE_WAYPOINT_NAMESPACE_LABEL = "istio.io/use-waypoint-namespace";
const TRAFFIC_TYPES: readonly Waypoint["for"][] = ["service", "workload", "all", "none"];

/** What a waypoint is for: its `istio.io/waypoint-for`, `service` when unlabelled or when the value is not one Istio knows. */
function waypointFor(labels: StringMap | undefined): Waypoint["for"] {
  const value = ownValue(labels, WAYPOINT_FOR_LABEL);
  return TRAFFIC_TYPES.find((t) => t === value) ?? "service";
}

/**
 * Returns `meshes` with `spec.istio.waypoints` set (docs/ambient.md#what-discovery-sees): every
 * Gateway of class `istio-waypoint`, given to the Istio mesh of its `istio.io/rev` (else the default
 * revision's), sorted by namespace and name. Only a mesh of Istio 1.24 or later has waypoints
 * (`ambientCapable`); a mesh with none gets no field.
 */
export function attachWaypoints(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  const byMesh = new Map<string, Waypoint[]>();
  for (const gateway of index.objects.gateways ?? []) {
    if (gateway.spec.gatewayClassName !== WAYPOINT_CLASS) continue;
    const mesh = istioMeshFor(meshes, ownValue(gateway.metadata.labels, ISTIO_REV_LABEL));
    if (!mesh || !ambientCapable(mesh.spec.version)) continue;
    const waypoint: Waypoint = { name: gateway.metadata.name, namespace: gateway.metadata.namespace ?? "", for: waypointFor(gateway.metadata.labels) };
    byMesh.set(mesh.metadata.name, [...(byMesh.get(mesh.metadata.name) ?? []), waypoint]);
  }
  return meshes.map((mesh) => {
    const waypoints = byMesh.get(mesh.metadata.name);
    if (!mesh.spec.istio || !waypoints) return mesh;
    const sorted = waypoints.toSorted((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
    return { ...mesh, spec: { ...mesh.spec, istio: { ...mesh.spec.istio, waypoints: sorted } } };
  });
}

/** Where an object sits and what it is labelled: the inputs of `boundWaypoint`. */
export interface BindingContext {
  namespace: string;
  /** The Service's labels (a Destination) or the pod template's (a Workload). */
  labels: StringMap | undefined;
}

/** The waypoint one label map asks for, `none` for an opt-out, undefined when it names none. */
function requested(labels: StringMap | undefined, namespace: string): { name: string; namespace: string } | "none" | undefined {
  const name = ownValue(labels, USE_WAYPOINT_LABEL);
  if (name === undefined || name === "") return undefined;
  if (name === "none") return "none";
  return { name, namespace: ownValue(labels, USE_WAYPOINT_NAMESPACE_LABEL) || namespace };
}

/** Whether a Kubernetes label selector selects `labels` (an empty selector selects everything). */
function selectorMatches(selector: LabelSelector | undefined, labels: StringMap): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => ownValue(labels, key) === value);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const value = ownValue(labels, key);
      if (operator === "In") return value !== undefined && values.includes(value);
      if (operator === "NotIn") return value === undefined || !values.includes(value);
      if (operator === "Exists") return value !== undefined;
      if (operator === "DoesNotExist") return value === undefined;
      return false;
    })
  );
}

/**
 * Whether the waypoint `gateway` may serve an object of `namespace`: one of its own namespace always;
 * another only as its HBONE listener's `allowedRoutes` admits (`Same` when unset, `All`, or a
 * `Selector` over the namespace's labels).
 */
function admits(index: ClusterIndex, gateway: KubeGateway, namespace: string): boolean {
  if ((gateway.metadata.namespace ?? "") === namespace) return true;
  const allowed = gateway.spec.listeners?.find((l) => l.protocol === "HBONE")?.allowedRoutes?.namespaces;
  if (allowed?.from === "All") return true;
  return allowed?.from === "Selector" && selectorMatches(allowed.selector, index.namespaceLabels(namespace));
}

/**
 * The waypoint that serves traffic to a Service (`traffic: "service"`) or a workload (`"workload"`),
 * as istiod binds it (docs/ambient.md#what-discovery-sees): `istio.io/use-waypoint` (with
 * `istio.io/use-waypoint-namespace` from the same object for a waypoint in another namespace) on the
 * object itself, else on its namespace; `none` on the object opts out of its namespace's. Undefined
 * when nothing binds one, or when the bound waypoint is not among `waypoints` (its mesh's), is not
 * for that traffic (`all`, or the same type), is not programmed (no `status.addresses` on its
 * Gateway) or does not admit the object's namespace: such a waypoint serves nothing.
 */
export function boundWaypoint(
  index: ClusterIndex,
  context: BindingContext,
  traffic: "service" | "workload",
  waypoints: readonly Waypoint[],
): { name: string; namespace: string } | undefined {
  const ref = requested(context.labels, context.namespace) ?? requested(index.namespaceLabels(context.namespace), context.namespace);
  if (ref === undefined || ref === "none") return undefined;
  const waypoint = waypoints.find((w) => w.name === ref.name && w.namespace === ref.namespace);
  if (!waypoint || (waypoint.for !== traffic && waypoint.for !== "all")) return undefined;
  const gateway = index.gateway(ref.namespace, ref.name);
  const programmed = (gateway?.status?.addresses ?? []).length > 0;
  return gateway && programmed && admits(index, gateway, context.namespace) ? ref : undefined;
}
