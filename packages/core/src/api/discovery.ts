import { z } from "zod";
import { dnsLabel, dnsSubdomain, labelMap, labelValue } from "./common";

/**
 * Discovered resources (docs/resources.md#discovery): what the agent reports about one cluster.
 * They are the translator's view of the world, validated at the control plane boundary like any
 * other input.
 */
const address = z.strictObject({ ip: z.string().optional(), hostname: z.string().optional() });

export const gateway = z.strictObject({
  kind: z.enum(["ingress", "eastwest"]),
  name: z.string(),
  namespace: z.string(),
  selector: labelMap,
  tlsPortName: z.string(),
  /** The port clients outside the cluster use (LoadBalancer port, or NodePort). */
  externalPort: z.number().int(),
  /** The container port the gateway listens on for that Service port. */
  containerPort: z.number().int(),
  addresses: z.array(address),
});
export type Gateway = z.infer<typeof gateway>;

/**
 * Kubernetes names an agent reports. They are bounded and shaped here, at the boundary: the control
 * plane derives discovered names and store keys from them (docs/api.md, "Discovered names").
 */
const kubeName = dnsSubdomain;
const kubeNamespace = dnsLabel;
/**
 * A Service's name: Kubernetes allows only a DNS-1123 label, and generated names rely on it — a name
 * that is more than one Service's name joins its parts with '.', so it can equal no Service's
 * (docs/resources.md#generated-objects).
 */
const serviceName = dnsLabel;
/** The agent's own handle for an object of its report: only resolves references inside the report. */
const reportHandle = z.string().min(1).max(253, "must be at most 253 characters");

/**
 * A waypoint: a Gateway of class `istio-waypoint`, the L7 proxy of Istio's ambient data plane, and
 * the traffic it is for (`istio.io/waypoint-for`, `service` when unlabelled) (docs/ambient.md).
 */
export const waypoint = z.strictObject({
  name: kubeName,
  namespace: kubeNamespace,
  for: z.enum(["service", "workload", "all", "none"]),
});
export type Waypoint = z.infer<typeof waypoint>;

/** Which waypoint an object's traffic goes through (`istio.io/use-waypoint`, read where Istio reads it). */
const waypointRef = z.strictObject({ name: kubeName, namespace: kubeNamespace });

/**
 * How a workload's pods join the mesh, as Istio decides it (docs/ambient.md): `sidecar` (an injected
 * proxy), `ambient` (captured by ztunnel: `istio.io/dataplane-mode: ambient` on the namespace or pod,
 * no sidecar, no opt-out) or `none`. Absent in a report of an agent that predates ambient: `sidecar`.
 */
export const dataPlaneMode = z.enum(["sidecar", "ambient", "none"]);
export type DataPlaneMode = z.infer<typeof dataPlaneMode>;

/**
 * What Istio's multi-network ambient multicluster needs of a control plane, as discovery reads it
 * (docs/ambient.md#ambient-multicluster). Absent in a report of an agent that predates it, or one
 * that could not list namespaces: unknown, not checked.
 */
export const multiNetwork = z.strictObject({
  /**
   * istiod's `AMBIENT_ENABLE_MULTI_NETWORK`, read from its discovery container's literal `env` value
   * as Istio parses it (unset or not a Go truth: false); `unknown` when it may come from a ConfigMap
   * or Secret (`valueFrom`, `envFrom`, a `$(VAR)` reference), which discovery does not read.
   */
  enabled: z.union([z.boolean(), z.literal("unknown")]),
  /** `topology.istio.io/network` of the control plane's namespace; absent when unlabelled or empty (Istio's default network). */
  network: labelValue.min(1).optional(),
});
export type MultiNetwork = z.infer<typeof multiNetwork>;

/**
 * An east-west gateway of ambient multicluster a user made: a Gateway of class `istio-east-west`
 * without meshplane's `app.kubernetes.io/managed-by` label, and the network its
 * `topology.istio.io/network` label names (docs/ambient.md#ambient-multicluster). meshplane reuses
 * it and generates none for the mesh.
 */
export const eastWestGatewayRef = z.strictObject({
  name: kubeName,
  namespace: kubeNamespace,
  /** Its `topology.istio.io/network` label; absent when unlabelled or not a label value (Istio then does not use it). */
  network: labelValue.min(1).optional(),
});
export type EastWestGatewayRef = z.infer<typeof eastWestGatewayRef>;

/**
 * The cluster's Gateway API HTTPRoute CRD as discovery reads it (docs/ambient.md#retries-and-the-crd-channel).
 * Absent in a report of an agent that predates it or may not read the CRD: unknown, not checked.
 */
export const gatewayApiCrds = z.strictObject({
  /** The `httproutes.gateway.networking.k8s.io` CRD; absent when the cluster has none (it serves no HTTPRoute). */
  httpRoute: z
    .strictObject({
      /** Its `gateway.networking.k8s.io/bundle-version` annotation (e.g. `v1.6.0`), when it is a label value. */
      bundleVersion: labelValue.min(1).optional(),
      /** Its `gateway.networking.k8s.io/channel` annotation (`standard`, `experimental`), when it is a label value. */
      channel: labelValue.min(1).optional(),
      /** Whether the schema of its served `v1` declares a rule's `retry` (what the API server enforces; the annotations only inform). */
      retry: z.boolean(),
    })
    .optional(),
});
export type GatewayApiCrds = z.infer<typeof gatewayApiCrds>;

export const meshSpec = z.strictObject({
  type: z.enum(["istio", "osm"]),
  cluster: z.string(),
  namespace: kubeNamespace,
  /** The Deployment running the control plane (istiod, osm-controller); the mesh's name derives from it. */
  controller: kubeName.optional(),
  version: z.string().max(128),
  istio: z
    .strictObject({
      revision: z.string().optional(),
      trustDomain: z.string(),
      /** Other trust domains istiod accepts peers from (meshConfig trustDomainAliases, caCertificates[].trustDomains). */
      trustDomainAliases: z.array(z.string()).optional(),
      istiodServiceAccount: z.string(),
      smartDnsProxyingEnabled: z.boolean(),
      gateways: z.array(gateway),
      /** Istio's ambient data plane, when ztunnel runs for this control plane (its DaemonSet). */
      ambient: z
        .strictObject({
          ztunnel: z.strictObject({ namespace: kubeNamespace, version: z.string().max(128) }),
          multiNetwork: multiNetwork.optional(),
          /** East-west gateways users made for this control plane (none reported: none, or an agent that predates the field). */
          eastWestGateways: z.array(eastWestGatewayRef).optional(),
        })
        .optional(),
      /** The waypoints of this mesh (none reported = none exist). */
      waypoints: z.array(waypoint).optional(),
      /** The cluster's HTTPRoute CRD, the same on every Istio mesh of the cluster. */
      gatewayApi: gatewayApiCrds.optional(),
    })
    .optional(),
});

export const workloadSpec = z.strictObject({
  kind: z.enum(["Deployment", "StatefulSet", "DaemonSet"]),
  name: kubeName,
  namespace: kubeNamespace,
  cluster: z.string(),
  mesh: reportHandle,
  labels: labelMap,
  serviceAccount: kubeName,
  dataPlane: dataPlaneMode.optional(),
  /** The waypoint traffic addressed to this workload goes through (a waypoint for `workload` or `all`). */
  waypoint: waypointRef.optional(),
});

export const destinationSpec = z.strictObject({
  name: serviceName,
  namespace: kubeNamespace,
  cluster: z.string(),
  mesh: reportHandle,
  labels: labelMap,
  selector: labelMap,
  ports: z.array(
    z.strictObject({
      name: z.string().optional(),
      port: z.number().int(),
      protocol: z.string(),
      appProtocol: z.string().optional(),
      targetPort: z.union([z.number().int(), z.string()]).optional(),
    }),
  ),
  /** label key → the values it takes across backing workloads. */
  subsets: z.record(z.string(), z.array(z.string())),
  endpoints: z.array(
    z.strictObject({
      ip: z.string(),
      labels: labelMap,
      zone: z.string().optional(),
      subZone: z.string().optional(),
      /** The sidecar discovery saw in the endpoint's pod; absent when it has none (or an older agent reported it). */
      sidecar: z.enum(["istio", "osm"]).optional(),
    }),
  ),
  externalAddresses: z.array(address).optional(),
  workloads: z.array(reportHandle),
  /** How the backing workloads join the mesh: one mode, or `mixed` when they differ. Absent: `sidecar`. */
  dataPlane: z.enum(["sidecar", "ambient", "none", "mixed"]).optional(),
  /** The waypoint traffic to this service goes through (a waypoint for `service` or `all`). */
  waypoint: waypointRef.optional(),
});

const discoveredMetadata = z.strictObject({ name: reportHandle, cluster: z.string() });

export const mesh = z.strictObject({ kind: z.literal("Mesh"), metadata: discoveredMetadata, spec: meshSpec });
export const workload = z.strictObject({ kind: z.literal("Workload"), metadata: discoveredMetadata, spec: workloadSpec });
export const destination = z.strictObject({ kind: z.literal("Destination"), metadata: discoveredMetadata, spec: destinationSpec });
export type Mesh = z.infer<typeof mesh>;
export type Workload = z.infer<typeof workload>;
export type Destination = z.infer<typeof destination>;

/** What one cluster's agent reports. */
export const discoveryResult = z.strictObject({
  meshes: z.array(mesh),
  workloads: z.array(workload),
  destinations: z.array(destination),
});
export type DiscoveryResult = z.infer<typeof discoveryResult>;
