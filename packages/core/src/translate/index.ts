export { translate } from "./translate";
export type { CertificateDirective, ClusterOutput, KubeObject, ResourceKey, TranslateInput, TranslateOutput } from "./types";
export { Canonicalizer, canonicalize, canonicalJson } from "./canonical";
export { ANNOTATION_PARENTS, KIND_ORDER, LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT, type Parent } from "./output";
export { TranslateError } from "./errors";
export { ROTATION_PHASES, inStep, meshTrustStatus, type MeshTrustStatus, type RotationPhase, type VirtualMeshTrust } from "./trust";
