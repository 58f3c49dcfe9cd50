export * from "./describe";
export * from "./health";
export { claimantOf, type Claimant } from "../translate/claim-order";
export { DEFAULT_HOSTNAME_SUFFIX } from "../translate/federated-host";
