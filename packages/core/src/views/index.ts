export * from "./describe";
export * from "./health";
export { claimantOf, type Claimant } from "../translate/claim-order";
