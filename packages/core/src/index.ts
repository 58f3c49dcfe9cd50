export * from "./api/index";
export * from "./errors";
export * from "./discovery/index";
export * from "./pki/index";
export * from "./snapshot/index";
export { Canonicalizer, canonicalJson, sha256 } from "./translate/canonical";
export * from "./translate/index";
