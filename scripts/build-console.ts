/**
 * Builds the web console into packages/console/dist: index.html plus content-hashed assets (an ES
 * module entry, code-split chunks for the graph layout and the editor, one stylesheet). Prints what
 * loads at first render and in all, raw and gzipped, as one JSON line. `--if-stale` builds only when a
 * source is newer than the last build.
 */
import { build } from "esbuild";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { gzipSync } from "node:zlib";

const ROOT = resolve(import.meta.dirname, "..");
export const CONSOLE_DIST = join(ROOT, "packages/console/dist");
const SRC = join(ROOT, "packages/console/src");
// What the console bundles from core: the views and the modules they import.
const CORE = join(ROOT, "packages/core/src");

function newest(dir: string): number {
  let t = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, name.name);
    t = Math.max(t, name.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return t;
}

const size = (file: string) => readFileSync(resolve(ROOT, file));

export interface ConsoleBuild {
  /** Bytes the first render loads (index.html, the entry module and its static imports, the stylesheet). */
  initialBytes: number;
  initialGzipBytes: number;
  totalBytes: number;
  files: number;
}

export async function buildConsole(options: { ifStale?: boolean; quiet?: boolean } = {}): Promise<ConsoleBuild | undefined> {
  const stamp = join(CONSOLE_DIST, "index.html");
  if (options.ifStale && existsSync(stamp)) {
    const built = statSync(stamp).mtimeMs;
    if (newest(SRC) < built && newest(CORE) < built && statSync(join(ROOT, "package-lock.json")).mtimeMs < built) return undefined;
  }
  rmSync(CONSOLE_DIST, { recursive: true, force: true });
  mkdirSync(join(CONSOLE_DIST, "assets"), { recursive: true });
  const result = await build({
    entryPoints: { main: join(SRC, "main.tsx"), styles: join(SRC, "styles.css") },
    outdir: join(CONSOLE_DIST, "assets"),
    entryNames: "[name]-[hash]",
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    // light-dark() in the stylesheet sets the floor: Chrome 123, Firefox 120, Safari 17.5.
    target: ["es2022", "chrome123", "firefox120", "safari17.5"],
    minify: true,
    sourcemap: "linked",
    sourcesContent: false,
    legalComments: "linked",
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { "process.env.NODE_ENV": '"production"' },
    metafile: true,
    logLevel: "warning",
  });
  const outputs = result.metafile.outputs;
  const entry = Object.keys(outputs).find((o) => outputs[o]?.entryPoint?.endsWith("main.tsx") && o.endsWith(".js")) as string;
  const css = Object.keys(outputs).find((o) => o.endsWith(".css") && !o.endsWith(".map")) as string;
  const web = (file: string) => `/${relative(CONSOLE_DIST, resolve(ROOT, file)).split("\\").join("/")}`;
  const html = readFileSync(join(SRC, "index.html"), "utf8").replace("%SCRIPT%", web(entry)).replace("%STYLES%", web(css));
  writeFileSync(stamp, html);

  // What the first render needs: the entry, what it imports statically (transitively), the stylesheet.
  const initial = new Set<string>([entry, css]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const imp of outputs[queue.pop() as string]?.imports ?? []) {
      if (imp.kind === "import-statement" && !initial.has(imp.path)) {
        initial.add(imp.path);
        queue.push(imp.path);
      }
    }
  }
  const code = Object.keys(outputs).filter((o) => !o.endsWith(".map") && !o.endsWith(".LEGAL.txt"));
  const summary: ConsoleBuild = {
    initialBytes: [...initial].reduce((n, f) => n + size(f).length, 0) + html.length,
    initialGzipBytes: [...initial].reduce((n, f) => n + gzipSync(size(f)).length, 0) + gzipSync(html).length,
    totalBytes: code.reduce((n, f) => n + size(f).length, 0) + html.length,
    files: code.length + 1,
  };
  if (!options.quiet) {
    for (const f of code.sort())
      console.log(
        `${relative(CONSOLE_DIST, resolve(ROOT, f)).padEnd(48)} ${(size(f).length / 1024).toFixed(1).padStart(8)} KiB${initial.has(f) ? "  (first render)" : ""}`,
      );
    console.log(
      JSON.stringify({
        console_initial_kb: Math.round(summary.initialBytes / 1024),
        console_initial_gzip_kb: Math.round(summary.initialGzipBytes / 1024),
        console_total_kb: Math.round(summary.totalBytes / 1024),
        files: summary.files,
      }),
    );
  }
  return summary;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  await buildConsole({ ifStale: process.argv.includes("--if-stale") });
}
