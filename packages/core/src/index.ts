export * from "./api/index";
export * from "./errors";
export { type ObjectKey, type ResourceKey, objectKey, objectKeyOf, resourceKey, resourceKeyOf } from "./identity";
export { type VersionStamp, nextStoredVersion } from "./stored-version";
export * from "./discovery/index";
export * from "./pki/index";
export * from "./snapshot/index";
export { Canonicalizer, canonicalJson, sha256 } from "./translate/canonical";
export * from "./translate/index";
