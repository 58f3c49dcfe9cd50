/**
 * Core without its three large parts: discovery (the YAML parser under it), PKI (X.509) and
 * translation. The Lambda functions import this (`@meshplane/core/base`) and those parts from their
 * own subpaths (`@meshplane/core/pki`, `@meshplane/core/translate`), never the whole of core: with code
 * splitting, esbuild puts every module that a barrel its entry reaches exports among the modules
 * loaded at start, even where only an `await import()` uses it (docs/aws.md, "Function bundles").
 */
export * from "./api/index";
export * from "./errors";
// What the API catches of the PKI, without the X.509 code behind it.
export { PkiError } from "./pki/errors";
export { type ObjectKey, type ResourceKey, objectKey, objectKeyOf, resourceKey, resourceKeyOf } from "./identity";
export { type VersionStamp, nextStoredVersion } from "./stored-version";
export * from "./snapshot/index";
export { Canonicalizer, canonicalJson, sha256 } from "./translate/output/canonical";
export * from "./push";
// The control plane names what agents discover (docs/api.md, "Discovered names"): small, no YAML.
export { assignDiscoveredNames, meshController, meshName } from "./discovery/assign-names";
