export { discover, type DiscoverOptions } from "./discover";
export type { DiscoveryProblem, ReportProblem } from "./report";
export { discoveredName, dnsSafeName, workloadName, MAX_NAME_LENGTH, WORKLOAD_KIND_SUFFIX, type DiscoveredRef, type WorkloadKind } from "./names";
export { imageVersion } from "./images";
export type {
  ClusterObjects,
  ConfigMap,
  Container,
  EndpointSlice,
  Endpoints,
  Namespace,
  Node,
  ObjectMeta,
  Pod,
  PodController,
  PodSpec,
  ReplicaSet,
  Service,
} from "./kube";
export { groupClusterObjects } from "./group-objects";
export { HTTP_ROUTE_CRD } from "./gateway-api-crds";
