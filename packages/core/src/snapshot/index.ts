export * from "./payload";
export * from "./verify";
