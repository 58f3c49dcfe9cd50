/**
 * The slice of Kubernetes JSON that discovery reads, typed structurally. Objects arrive as the API
 * server returns them (list items often lack apiVersion/kind), so every field a server may omit is
 * optional here; we never depend on a Kubernetes client library in the pure core.
 */

export type StringMap = Record<string, string>;

export interface OwnerReference {
  kind: string;
  name: string;
  uid?: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  labels?: StringMap;
  annotations?: StringMap;
  ownerReferences?: OwnerReference[];
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

/**
 * A container's environment variable. The agent reads two of istiod's, by name, and no other: values
 * may be secrets, and none leaves the agent but those two's meaning — `AMBIENT_ENABLE_MULTI_NETWORK`
 * (discovery, docs/ambient.md#ambient-multicluster) and `CLUSTER_ID` (the cluster's Istio cluster ID in
 * its metrics reports, docs/observability.md#clusters).
 */
export interface EnvVar {
  name: string;
  value?: string;
  /** A value from a ConfigMap, Secret or field: never read. */
  valueFrom?: unknown;
}

export interface Container {
  name: string;
  image?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  /** Variables from whole ConfigMaps or Secrets: only their presence is read. */
  envFrom?: unknown[];
  /** `Always` on an init container makes it a native sidecar (Kubernetes ≥ 1.28). */
  restartPolicy?: string;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  serviceAccountName?: string;
  /** Deprecated alias of serviceAccountName that old manifests still set. */
  serviceAccount?: string;
  nodeName?: string;
  /** A pod in the node's network namespace: ztunnel cannot capture it. */
  hostNetwork?: boolean;
}

export interface PodTemplate {
  metadata?: { labels?: StringMap; annotations?: StringMap };
  spec: PodSpec;
}

/** Deployment, StatefulSet and DaemonSet share this shape as far as discovery is concerned. */
export interface PodController {
  metadata: ObjectMeta;
  spec: { replicas?: number; template: PodTemplate };
}

export interface ReplicaSet {
  metadata: ObjectMeta;
}

export interface Pod {
  metadata: ObjectMeta;
  spec: PodSpec;
  status?: { podIP?: string; phase?: string };
}

export interface ServicePort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
  targetPort?: number | string;
  nodePort?: number;
}

export interface LoadBalancerIngress {
  ip?: string;
  hostname?: string;
}

export interface Service {
  metadata: ObjectMeta;
  spec: { type?: string; selector?: StringMap; ports?: ServicePort[] };
  status?: { loadBalancer?: { ingress?: LoadBalancerIngress[] } };
}

export interface EndpointAddress {
  ip: string;
  nodeName?: string;
  targetRef?: { kind?: string; name: string; namespace?: string };
}

/** core/v1 Endpoints: the legacy form, still what older agents or clusters give us. */
export interface Endpoints {
  metadata: ObjectMeta;
  subsets?: { addresses?: EndpointAddress[]; notReadyAddresses?: EndpointAddress[] }[];
}

export interface EndpointSliceEndpoint {
  addresses: string[];
  conditions?: { ready?: boolean };
  nodeName?: string;
  zone?: string;
  targetRef?: { kind?: string; name: string; namespace?: string };
}

export interface EndpointSlice {
  metadata: ObjectMeta;
  addressType: string;
  endpoints?: EndpointSliceEndpoint[] | null;
}

export interface ConfigMap {
  metadata: ObjectMeta;
  data?: StringMap;
}

export interface NodeAddress {
  type: string;
  address: string;
}

export interface Node {
  metadata: ObjectMeta;
  status?: { addresses?: NodeAddress[] };
}

export interface Namespace {
  metadata: ObjectMeta;
}

/**
 * A Gateway of the Kubernetes Gateway API (gateway.networking.k8s.io/v1). Discovery reads only
 * waypoints, the Gateways of class `istio-waypoint` (docs/ambient.md#what-discovery-sees).
 */
export interface KubeGateway {
  metadata: ObjectMeta;
  spec: { gatewayClassName?: string; listeners?: GatewayListener[] };
  /** Addresses appear once the Gateway is programmed (its proxy Service exists). */
  status?: { addresses?: { type?: string; value: string }[] };
}

export interface LabelSelector {
  matchLabels?: StringMap;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface GatewayListener {
  name?: string;
  port?: number;
  protocol?: string;
  /** Which namespaces may attach to the listener; `Same` when absent. */
  allowedRoutes?: { namespaces?: { from?: string; selector?: LabelSelector } };
}

/**
 * A CustomResourceDefinition (apiextensions.k8s.io/v1). Discovery reads one, Gateway API's HTTPRoute:
 * its annotations and whether a served version's schema declares a field
 * (docs/ambient.md#retries-and-the-crd-channel).
 */
export interface CustomResourceDefinition {
  metadata: ObjectMeta;
  spec?: { versions?: CrdVersion[] };
}

export interface CrdVersion {
  name: string;
  served?: boolean;
  /** The version's OpenAPI v3 schema, walked by property names only. */
  schema?: { openAPIV3Schema?: unknown };
}

/** Everything the agent lists from one cluster; `discover` reads nothing else. */
export interface ClusterObjects {
  cluster: string;
  deployments: PodController[];
  statefulSets: PodController[];
  daemonSets: PodController[];
  replicaSets: ReplicaSet[];
  pods: Pod[];
  services: Service[];
  /** Used only when `endpointSlices` is absent (clusters or agents without discovery.k8s.io/v1). */
  endpoints?: Endpoints[];
  endpointSlices?: EndpointSlice[];
  configMaps: ConfigMap[];
  nodes: Node[];
  /** Absent means "no namespace labels known": injection is then decided by pod templates only. */
  namespaces?: Namespace[];
  /** Absent (a cluster whose apiserver does not serve the Gateway API) or empty: no waypoints. */
  gateways?: KubeGateway[];
  /**
   * The CRDs the agent may read (the HTTPRoute CRD, by name). Absent: not read (an older agent, or a
   * chart that does not grant it), so nothing is reported of them; empty: the cluster has none.
   */
  customResourceDefinitions?: CustomResourceDefinition[];
}

/** The reference of a namespaced object, `<namespace>/<name>`, used as an index key. */
export function refKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ""}/${name}`;
}
