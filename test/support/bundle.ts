import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * Lambda functions are bundled by infra/lib/bundle.ts (ESM with code splitting: a directory with
 * `index.mjs` and its chunks); tests and benchmarks call the very same function the stack does.
 */
export { bundleFunction, describeBundle, type FunctionBundle } from "../../infra/lib/bundle";

/**
 * Bundles an entry point the way the agent image is bundled (packages/agent/Dockerfile: one ESM
 * file, minified, for Node), so tests measure what ships. Returns `outfile`.
 */
export async function bundleEntry(entry: string, outfile: string, target: "node20" | "node22"): Promise<string> {
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target,
    minify: true,
    // ESM bundles of CommonJS dependencies need a require() in scope.
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: "error",
  });
  return outfile;
}
