export * from "./describe";
export * from "./health";
export { claimantOf, type Claimant } from "../translate/virtual-mesh/claim-order";
export { DEFAULT_HOSTNAME_SUFFIX } from "../translate/virtual-mesh/federated-host";
