import { join, resolve } from "node:path";
import { build } from "esbuild";

const ROOT = resolve(import.meta.dirname, "../..");

/**
 * Bundles an entry point the way the deployables are bundled (ESM, minified, for Node), so tests and
 * benchmarks measure what ships: the Lambda functions (infra/lib/function.ts) and the agent image
 * (packages/agent/Dockerfile). Returns `outfile`.
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
