export * from "./describe";
export * from "./health";
