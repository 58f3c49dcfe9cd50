export {
  type ServiceRef,
  API_VERSION,
  DNS_LABEL,
  INT32_MAX,
  LABEL_KEY,
  MAX_DURATION_MS,
  clientMap,
  dnsLabel,
  dnsSubdomain,
  duration,
  exactlyOne,
  int32Message,
  labelMap,
  objectRef,
  parseDuration,
  percentage,
  port,
  serviceRef,
} from "./common";
export { type StringMatch, regex, stringMatch } from "./regex";
export {
  type DestinationSelector,
  type IdentitySelector,
  type WorkloadSelector,
  destinationSelector,
  identitySelector,
  kubeServiceMatcher,
  serviceAccountRef,
  workloadSelector,
} from "./selectors";
export {
  type HttpMatcher,
  type TrafficPolicyFeatures,
  type TrafficPolicySpec,
  httpMatcher,
  httpMethod,
  trafficPolicyFeatures,
  trafficPolicySpec,
} from "./traffic-policy";
export { type AccessPolicySpec, accessPolicySpec } from "./access-policy";
export { type RoutingApi, routingApi, type VirtualMeshSpec, virtualMeshSpec, type WaypointMode, waypointMode } from "./virtual-mesh";
export { type ResourceStatus, type State, STATES, pendingStatus, resourceStatus, state } from "./status";
export { AUTHORED_NAME, type ResourceSource, authoredName, parseAuthoredName, resourceName, resourceSource } from "./source";
export {
  type InputMetadata,
  type StoredMetadata,
  type StoredResource,
  type UserDocument,
  type UserKind,
  DOCUMENT_SCHEMAS,
  USER_KINDS,
  USER_KIND_NAMES,
  accessPolicyDocument,
  inputMetadata,
  storedMetadata,
  trafficPolicyDocument,
  virtualMeshDocument,
} from "./resource";
export {
  type DataPlaneMode,
  type Destination,
  type DiscoveryResult,
  type EastWestGatewayRef,
  type Gateway,
  type GatewayApiCrds,
  type Mesh,
  type Waypoint,
  type Workload,
  dataPlaneMode,
  destination,
  destinationSpec,
  discoveryResult,
  gateway,
  mesh,
  meshSpec,
  waypoint,
  workload,
  workloadSpec,
} from "./discovery";
export { dataPlaneOf } from "./data-plane";
export { fieldErrors, issuePath, parseOrThrow } from "./validate";
export { type Requirement, matchesLabels, parseLabelSelector } from "./label-selector";
export {
  type AgentClaims,
  type CertificateResult,
  type CsrRequest,
  type CsrResponse,
  type DiscoveryReport,
  type ObjectResult,
  type PublicEcJwk,
  type RegisterRequest,
  type RegisterResponse,
  type StatusReport,
  MAX_AGENT_TOKEN_SECONDS,
  agentClaims,
  certificateDirective,
  certificateResult,
  csrRequest,
  csrResponse,
  discoveryReport,
  incarnationId,
  objectResult,
  publicEcJwk,
  registerRequest,
  registerResponse,
  statusReport,
} from "./agent";
export { TOKEN_ROLES, applyResult, bootstrapView, clusterView, listOf, storedDocument, tenantView, tokenInfo } from "./responses";
