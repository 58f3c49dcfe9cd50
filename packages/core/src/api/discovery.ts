import { z } from "zod";
import { labelMap } from "./common";

/**
 * Discovered resources (API.md §3): what the agent reports about one cluster. They are the
 * translator's view of the world, validated at the control plane boundary like any other input.
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

export const meshSpec = z.strictObject({
  type: z.enum(["istio", "osm"]),
  cluster: z.string(),
  namespace: z.string(),
  version: z.string(),
  istio: z
    .strictObject({
      revision: z.string().optional(),
      trustDomain: z.string(),
      /** Other trust domains istiod accepts peers from (meshConfig trustDomainAliases, caCertificates[].trustDomains). */
      trustDomainAliases: z.array(z.string()).optional(),
      istiodServiceAccount: z.string(),
      smartDnsProxyingEnabled: z.boolean(),
      gateways: z.array(gateway),
    })
    .optional(),
});

export const workloadSpec = z.strictObject({
  kind: z.enum(["Deployment", "StatefulSet", "DaemonSet"]),
  name: z.string(),
  namespace: z.string(),
  cluster: z.string(),
  mesh: z.string(),
  labels: labelMap,
  serviceAccount: z.string(),
});

export const destinationSpec = z.strictObject({
  name: z.string(),
  namespace: z.string(),
  cluster: z.string(),
  mesh: z.string(),
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
  workloads: z.array(z.string()),
});

const discoveredMetadata = z.strictObject({ name: z.string(), cluster: z.string() });

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
