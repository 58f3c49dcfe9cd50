export { Translator } from "./engine/translator";
export { translate } from "./translate";
export { type PlannedRouting, type RoutingChange, routingChanges, withPlannedRouting } from "./gateway-api/routing-api";
export type { CertificateDirective, ClusterOutput, KubeObject, TranslateInput, TranslateOutput } from "./types";
export { Canonicalizer, canonicalize, canonicalJson } from "./output/canonical";
export { ANNOTATION_PARENTS, LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT, type Parent, objectCount, objectRefs, objectsJson } from "./output/sink";
export { GENERATED_KINDS, type GeneratedKind, type GeneratedKindRow, apiVersionsOf, groupOf, kindRank, rowOf } from "./output/generated-kinds";
export { TranslateError } from "./errors";
export {
  ROTATION_PHASES,
  certificateReports,
  inStep,
  meshTrustStatus,
  type MeshTrustStatus,
  type RotationPhase,
  type VirtualMeshTrust,
} from "./virtual-mesh/trust";
export { federatedHost } from "./virtual-mesh/federation-plan";
export { ANNOTATION_GLOBAL_SERVICES, EAST_WEST_GATEWAY, LABEL_GLOBAL, parseGlobalServices } from "./virtual-mesh/ambient-gateways";
export { ANNOTATION_WAYPOINT_SERVICES, BINDING_FIELD_MANAGER, LABEL_USE_WAYPOINT, ON_DEMAND_WAYPOINT, parseWaypointServices } from "./waypoints/index";
