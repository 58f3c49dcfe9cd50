/**
 * The YAML parser, which route.ts loads on the first YAML body (most bodies are JSON). It is reached
 * through this module because the package is CommonJS: a bundle's `import("yaml")` would hand back
 * only a default export, where a static import here gets the named ones.
 */
export { parseAllDocuments } from "yaml";
