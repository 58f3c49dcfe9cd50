import type { Destination } from "../../api/index";

/**
 * The destinations whose `spec.waypoint` is one meshplane plans to create and bind
 * (docs/ambient.md#waypoints-on-demand), not one discovery saw. A copy is marked when the planner
 * makes it; the mark lives as long as the copy.
 */
const PLANNED = new WeakSet<Destination>();

/** Marks `destination` (a planner's copy) as carrying a planned waypoint. */
export function markPlanned(destination: Destination): Destination {
  PLANNED.add(destination);
  return destination;
}

/** Whether `destination`'s waypoint is planned by meshplane rather than discovered. */
export function waypointPlanned(destination: Destination): boolean {
  return PLANNED.has(destination);
}
