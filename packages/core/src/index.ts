export * from "./base";
export * from "./discovery/index";
export * from "./pki/index";
export * from "./translate/index";
export * from "./views/index";
