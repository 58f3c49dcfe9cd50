export {
  type AccessGrant,
  type AppliedPolicy,
  type DestinationDescription,
  type DestinationView,
  type FederationRoute,
  type GeneratedRef,
  type PlacedObject,
  type ResourceStatusView,
  type ResourceView,
  type SnapshotObjectView,
  type StatusReasons,
  describeDestination,
  generatedBy,
  generatedRef,
  parentsOf,
  reasonsOf,
} from "./describe";
export {
  type DataPlaneSpec,
  type DiscoveredDataPlaneView,
  type MeshDataPlane,
  type MeshDataPlaneView,
  type WaypointRefView,
  type WaypointUse,
  dataPlaneFacts,
  dataPlaneOf,
  describeMeshDataPlane,
  waypointOf,
  ztunnelText,
} from "./data-plane";
export {
  type PlanView,
  type PlannedObjectView,
  type PlannedStatusView,
  type RoutingChangeView,
  type StatusChange,
  planInvalid,
  plannedObjectName,
  statusChanges,
} from "./plan";
export { type ClusterHealth, type ClusterView, type SnapshotView, STALE_AFTER_S, ago, certificateDays, problemsOf, readEach, secondsSince } from "./health";
export { claimantOf, type Claimant } from "../translate/virtual-mesh/claim-order";
export { DEFAULT_HOSTNAME_SUFFIX } from "../translate/virtual-mesh/federated-host";
export type {
  ChangeImpact,
  ChangeMarker,
  DestinationMetrics,
  GraphEdge,
  GraphNode,
  GraphView,
  ImpactList,
  SeriesPoint,
  SignalSummary,
} from "../metrics/views";
export { type ResourceSourceView, deleteWarning, sourceFacts, sourceNote } from "./source";
