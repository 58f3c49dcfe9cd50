export * from "./control-plane/client";
export * from "./stages/apply";
export * from "./agent";
export * from "./options";
