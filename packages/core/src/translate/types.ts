import type { Destination, Mesh, ResourceStatus, StoredResource, Workload } from "../api/index";

/**
 * Everything `translate` needs for one tenant. Resources carry the status they were last given, so
 * acceptance order (status.destinations[*].acceptanceOrder) survives from one translation to the next.
 */
export interface TranslateInput {
  tenant: string;
  /** Registered clusters; discovered objects of unknown clusters are ignored. */
  clusters: string[];
  meshes: Mesh[];
  workloads: Workload[];
  destinations: Destination[];
  virtualMeshes: StoredResource<"VirtualMesh">[];
  trafficPolicies: StoredResource<"TrafficPolicy">[];
  accessPolicies: StoredResource<"AccessPolicy">[];
}

/** A generated Kubernetes object: apiVersion, kind and metadata come first in every one. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
  };
  [field: string]: unknown;
}

/** What the control plane asks an agent to issue for a shared-trust mesh (the issuing comes later). */
export interface CertificateDirective {
  mesh: string;
  virtualMesh: string;
  /** SPIFFE identity of istiod the intermediate is issued to. */
  identity: string;
  secretNamespace: string;
  secretName: "cacerts";
  ttlDays: number;
  rotateBeforeDays: number;
  keyAlgorithm: "ECDSA_P256" | "RSA_2048" | "RSA_4096";
  autoRestartPods: boolean;
}

export interface ClusterOutput {
  /** Sorted by kind order, namespace, name; serialised with stable key order. */
  objects: KubeObject[];
  certificates: CertificateDirective[];
  /** "sha256:<hex>" of the canonical JSON of { objects, certificates }. */
  hash: string;
}

/** Key of a status in the output: `<Kind>/<name>`. */
export type ResourceKey = `${"VirtualMesh" | "TrafficPolicy" | "AccessPolicy"}/${string}`;

export interface TranslateOutput {
  /** One entry per registered cluster, even when it gets no objects. */
  clusters: Record<string, ClusterOutput>;
  statuses: Record<ResourceKey, ResourceStatus>;
}
