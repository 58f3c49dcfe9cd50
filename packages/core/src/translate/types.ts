import type { AuthoringGrant } from "../authoring/grant";
import type { CertificateResult, Destination, Mesh, ResourceStatus, StoredResource, Workload } from "../api/index";
import type { ResourceKey } from "../identity";
import type { VirtualMeshTrust } from "./virtual-mesh/trust";

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
  /** The certificate authority of each shared-trust VirtualMesh, by name (absent: not created yet). */
  trust?: Record<string, VirtualMeshTrust>;
  /** The agents' latest certificate reports, by cluster. */
  certificates?: Record<string, CertificateResult[]>;
  /** What each cluster may author, where a tenant admin set it (docs/gitops.md#grants); absent: the default. */
  grants?: Record<string, AuthoringGrant>;
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

/**
 * What the control plane asks an agent to keep in a shared-trust mesh's `cacerts`
 * (docs/resources.md#virtualmesh and #agent-protocol): an intermediate for `identity`, issued by
 * the certificate with fingerprint `issuer`, next to a trust bundle of exactly the roots
 * `trustBundle` names. The agent requests a new intermediate through `POST /v1/agent/csr` when what
 * it holds differs or is within `rotateBeforeDays` of expiry.
 */
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
  /** Fingerprint (`sha256:<hex>`) of the certificate that signs intermediates now. */
  issuer: string;
  /** Fingerprints of the roots every member must trust now, sorted. */
  trustBundle: string[];
}

export interface ClusterOutput {
  /** Sorted by kind order (GENERATED_KINDS), namespace, name; serialised with stable key order. */
  objects: KubeObject[];
  certificates: CertificateDirective[];
  /** "sha256:<hex>" of the canonical JSON of { objects, certificates }. */
  hash: string;
}

export interface TranslateOutput {
  /** One entry per registered cluster, even when it gets no objects. */
  clusters: Record<string, ClusterOutput>;
  statuses: Record<ResourceKey, ResourceStatus>;
}
