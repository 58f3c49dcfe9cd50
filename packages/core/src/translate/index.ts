export { Translator, translate } from "./translate";
export type { CertificateDirective, ClusterOutput, KubeObject, TranslateInput, TranslateOutput } from "./types";
export { Canonicalizer, canonicalize, canonicalJson } from "./canonical";
export { ANNOTATION_PARENTS, LABEL_CLUSTER, LABEL_MANAGED_BY, LABEL_TENANT, type Parent, objectCount, objectRefs, objectsJson } from "./output";
export { GENERATED_KINDS, type GeneratedKind, type GeneratedKindRow, apiVersionsOf, kindRank } from "./generated-kinds";
export { TranslateError } from "./errors";
export { ROTATION_PHASES, certificateReports, inStep, meshTrustStatus, type MeshTrustStatus, type RotationPhase, type VirtualMeshTrust } from "./trust";
export { federatedHost } from "./federation-plan";
