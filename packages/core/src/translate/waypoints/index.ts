export { ANNOTATION_WAYPOINT_SERVICES, BINDING_FIELD_MANAGER, LABEL_USE_WAYPOINT, ON_DEMAND_WAYPOINT, parseWaypointServices } from "./names";
export { waypointDraft, waypointObjects } from "./objects";
export { type PlannedWaypoint, type WaypointPlan, WaypointPlanner } from "./plan";
export { waypointPlanned } from "./planned";
