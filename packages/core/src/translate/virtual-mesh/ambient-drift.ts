import type { Destination } from "../../api/index";
import { compareStrings } from "../compare";
import type { Model } from "../input/model";
import { resourceKeyOf } from "../../identity";
import type { Reporter } from "../status/reporter";
import type { GlobalService } from "./ambient-federation";

const NO_WAYPOINT = "none";

function waypointOf(d: Destination): string {
  const w = d.spec.waypoint;
  return w === undefined ? NO_WAYPOINT : `${w.namespace}/${w.name}`;
}

/** A Service's ports as Istio compares them when it merges a global service: service port and target port. */
function portsOf(d: Destination): string {
  const ports = d.spec.ports.map((p) => `${p.port}${p.targetPort === undefined || p.targetPort === p.port ? "" : `->${p.targetPort}`}`);
  return ports.sort(compareStrings).join(",") || "none";
}

/** `none` sorts after any value on a tie. */
const rank = (v: string): number => (v === NO_WAYPOINT ? 1 : 0);

/** How many copies hold each value, most first (ties: code-unit order, `none` last). */
function tally(values: readonly string[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || rank(a[0]) - rank(b[0]) || compareStrings(a[0], b[0]));
}

/** The value strictly more copies share than any other; undefined on a tie. */
function majority(values: readonly string[]): string | undefined {
  const [first, second] = tally(values);
  return first !== undefined && (second === undefined || first[1] > second[1]) ? first[0] : undefined;
}

function where(d: Destination): string {
  return `mesh ${d.spec.mesh} (cluster ${d.spec.cluster})`;
}

function waypointFix(service: GlobalService, d: Destination, wanted: string, model: Model): string {
  if (wanted === NO_WAYPOINT) return `remove the istio.io/use-waypoint label that binds it there`;
  const [namespace, name] = wanted.split("/") as [string, string];
  const exists = (model.meshOf(d).spec.istio?.waypoints ?? []).some((w) => w.namespace === namespace && w.name === name);
  const label = `label Service ${service.namespace}/${service.name} there istio.io/use-waypoint=${name}${namespace === service.namespace ? "" : ` and istio.io/use-waypoint-namespace=${namespace}`}`;
  return exists ? label : `create waypoint ${wanted} (a Gateway of class istio-waypoint) in cluster ${d.spec.cluster} and ${label}`;
}

/**
 * Reports, on the VirtualMesh for each member that differs, what Istio's ambient multicluster needs
 * identical in every cluster of a global service and discovery shows differing
 * (docs/ambient.md#ambient-multicluster): the waypoint the Service is bound to (Istio routes a
 * global service through the waypoint of the caller's own cluster, found by name) and its ports
 * (Istio keeps the caller's cluster's ports for the merged service and only logs the others).
 */
export function reportGlobalServiceDrift(service: GlobalService, model: Model, reporter: Reporter): void {
  const copies = service.destinations;
  if (copies.length < 2) return;
  const key = resourceKeyOf(service.virtualMesh);
  const id = `global service ${service.namespace}/${service.name}`;
  const waypoints = copies.map(waypointOf);
  // Without a majority, a bound waypoint is what the others are measured against: there is one to create.
  const wantedWaypoint = (tally(waypoints)[0] as [string, number])[0];
  copies.forEach((d, i) => {
    const has = waypoints[i] as string;
    if (has === wantedWaypoint) return;
    const others = copies.filter((_, j) => waypoints[j] === wantedWaypoint).map(where);
    reporter.reportMesh(
      key,
      d.spec.mesh,
      `${id} differs between clusters: ${where(d)} binds it to waypoint ${has}, ${others.join(", ")} to ${wantedWaypoint}; Istio needs the same waypoint name in every cluster: ${waypointFix(service, d, wantedWaypoint, model)}`,
    );
  });
  const ports = copies.map(portsOf);
  const wantedPorts = majority(ports);
  copies.forEach((d, i) => {
    const has = ports[i] as string;
    if (has === wantedPorts || ports.every((p) => p === has)) return;
    const others = copies.flatMap((o, j) => (ports[j] === has ? [] : [`${where(o)} has ${ports[j]}`]));
    reporter.reportMesh(
      key,
      d.spec.mesh,
      `${id} differs between clusters: ${where(d)} has ports ${has}, ${others.join(", ")}; Istio keeps each caller's own cluster's ports for the merged service, so give the Service the same ports everywhere`,
    );
  });
}
