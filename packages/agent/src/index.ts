export * from "./client";
export * from "./apply";
export * from "./agent";
export * from "./options";
