/**
 * Bundles the CLI (packages/cli/src/main.ts) into packages/cli/dist: one small entry that parses
 * arguments and a chunk per command group, loaded when that command runs, so `meshplane --version`
 * reads only the entry. Everything it imports (core's schemas, YAML, commander, …) is inside: the
 * packed package has no dependencies to install. The agent's Helm chart is copied beside it
 * (dist/chart), for `cluster register --install`. Prints the sizes as JSON.
 */
import { chmodSync, cpSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = join(import.meta.dirname, "..");
const pkgDir = join(root, "packages/cli");
const out = process.argv[2] ?? join(pkgDir, "dist");
const { version } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { version: string };

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: { meshplane: join(pkgDir, "src/main.ts") },
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  minify: true,
  outExtension: { ".js": ".mjs" },
  chunkNames: "chunks/[name]-[hash]",
  define: { MESHPLANE_CLI_VERSION: JSON.stringify(version) },
  // Bundled CommonJS (cli-table3) calls require(): give the ES module one.
  banner: { js: "import { createRequire as __meshplaneRequire } from 'node:module'; const require = __meshplaneRequire(import.meta.url);" },
  legalComments: "none",
  logLevel: "warning",
});
chmodSync(join(out, "meshplane.mjs"), 0o755);
cpSync(join(root, "packages/agent/chart"), join(out, "chart"), { recursive: true });

const sizes = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((sum, e) => sum + (e.isDirectory() ? sizes(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
console.log(JSON.stringify({ cli: out, entry_kib: Math.round(statSync(join(out, "meshplane.mjs")).size / 1024), total_kib: Math.round(sizes(out) / 1024) }));
