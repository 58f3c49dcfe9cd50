import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { type BuildOptions, type Metafile, type Plugin, build } from "esbuild";

/** The repository root: metafile paths are relative to it. */
export const ROOT = join(import.meta.dirname, "../..");

/**
 * How every Lambda function is bundled (and what test/bench measures): esbuild, ESM for Node.js 22,
 * minified, with source maps, the AWS SDK included. Code splitting is on, so a module reached only
 * through `await import()` is its own chunk that Node loads on first use; `index.mjs` is the entry.
 */
const FUNCTION_BUILD: BuildOptions = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  minify: true,
  sourcemap: true,
  // Stack traces need the mappings and file names only; without the sources each map is a third of
  // the size, and Node reads and parses every map of a module as it loads it (--enable-source-maps).
  sourcesContent: false,
  splitting: true,
  entryNames: "index",
  chunkNames: "chunks/[name]-[hash]",
  // Every output is ESM: Lambda loads the entry by its extension, and Node the chunks the same way.
  outExtension: { ".js": ".mjs" },
  // The ESM builds of the SDK and other dependencies (`module`), which tree-shake; `main` is often CommonJS.
  mainFields: ["module", "main"],
  // ESM bundles of CommonJS dependencies need a require() in scope (each chunk is its own module).
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  metafile: true,
  logLevel: "warning",
};

/**
 * `import { z } from "zod"` binds zod's namespace object, and esbuild then keeps every export of
 * zod (all its ~40 locales, JSON Schema import) — about 350 KiB minified. `import * as z` is the same
 * namespace, read through property accesses that esbuild can shake. This rewrites the one form the
 * repository uses; a source already written `import * as z` passes through untouched.
 */
const zodNamespaceImports: Plugin = {
  name: "zod-namespace-imports",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes("/node_modules/")) return undefined;
      const source = await readFile(args.path, "utf8");
      const contents = source.replace(ZOD_NAMED_IMPORT, 'import * as z from "zod";');
      return contents === source ? undefined : { contents, loader: "ts" };
    });
  },
};
const ZOD_NAMED_IMPORT = /^import \{ z \} from "zod";$/gm;

/**
 * packages/core is pure (docs/style.md#1-the-core-is-pure-effects-live-at-the-edges): importing one
 * of its modules does nothing but define exports (x509.ts's polyfill import stays with x509.ts,
 * which keeps it whenever it is used). Saying so lets esbuild drop the core modules a function
 * never uses instead of keeping every module its barrels (`@meshplane/core` and its subpaths) name —
 * the translators, discovery and the YAML parser under it, where a function does not run them.
 * `"sideEffects": false` in packages/core/package.json would say the same.
 */
const pureCore: Plugin = {
  name: "pure-core",
  setup(b) {
    b.onResolve({ filter: /^(@meshplane\/core(\/|$)|\.)/ }, async (args) => {
      if (args.pluginData === pureCore || !(args.path.startsWith("@meshplane/core") || args.importer.includes("/packages/core/src/"))) return undefined;
      const resolved = await b.resolve(args.path, { resolveDir: args.resolveDir, kind: args.kind, importer: args.importer, pluginData: pureCore });
      if (resolved.errors.length > 0 || !resolved.path.includes("/packages/core/src/")) return resolved;
      return { path: resolved.path, sideEffects: false };
    });
  },
};

export interface OutputSize {
  /** Relative to the bundle directory: `index.mjs`, `chunks/….mjs`. */
  file: string;
  bytes: number;
  /** Loaded with the entry (statically imported from it, directly or not), not on demand. */
  initial: boolean;
}

export interface FunctionBundle {
  dir: string;
  /** Every JavaScript file of the bundle (source maps left out), the entry first. */
  files: OutputSize[];
  /** What Node loads before the handler runs: the entry and the chunks it imports statically. */
  initialBytes: number;
  totalBytes: number;
  /** esbuild's record of which input went into which output (for `analyzeMetafile`). */
  metafile: Metafile;
}

const sum = (files: OutputSize[]) => files.reduce((s, f) => s + f.bytes, 0);

/** The entry's static closure over the build's outputs, and every output's size. */
function bundleSizes(metafile: Metafile, dir: string): FunctionBundle {
  const file = (path: string) => relative(dir, resolve(ROOT, path));
  const outputs = Object.entries(metafile.outputs).filter(([path]) => path.endsWith(".mjs"));
  // Chunks reached by import() are entry points to esbuild too; the function's is index.mjs.
  const entry = outputs.find(([path]) => file(path) === "index.mjs");
  if (entry === undefined) throw new Error("the build has no index.mjs");
  const initial = new Set<string>();
  const visit = (path: string) => {
    if (initial.has(path)) return;
    initial.add(path);
    for (const i of metafile.outputs[path]?.imports ?? []) if (i.kind === "import-statement" && !i.external) visit(i.path);
  };
  visit(entry[0]);
  const files = outputs
    .map(([path, o]) => ({ file: file(path), bytes: o.bytes, initial: initial.has(path) }))
    .sort((a, b) => Number(b.file === "index.mjs") - Number(a.file === "index.mjs") || Number(b.initial) - Number(a.initial) || b.bytes - a.bytes);
  return { dir, files, initialBytes: sum(files.filter((f) => f.initial)), totalBytes: sum(files), metafile };
}

/**
 * Bundles a function's entry point (an absolute path) into `outdir` as FUNCTION_BUILD says; `outdir`
 * then holds `index.mjs`, its chunks and their source maps, and nothing else a function needs.
 * Build errors are thrown (esbuild has printed them).
 */
export async function bundleFunction(entry: string, outdir: string): Promise<FunctionBundle> {
  const result = await build({ ...FUNCTION_BUILD, entryPoints: [entry], outdir, absWorkingDir: ROOT, plugins: [zodNamespaceImports, pureCore] });
  return bundleSizes(result.metafile as Metafile, outdir);
}

const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;

/** One line about a bundle: what loads with the entry, and everything on disk. */
export function describeBundle(name: string, b: FunctionBundle): string {
  const lazy = b.files.filter((f) => !f.initial).length;
  return `${name}: ${kib(b.initialBytes)} loaded at start (${b.files.length - lazy} files), ${kib(b.totalBytes)} in all (${lazy} more on demand)`;
}
