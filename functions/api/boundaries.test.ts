import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// The API and the worker are deployed as separate Lambda functions; what both need lives in
// functions/shared, functions/store or core, so neither bundle carries the other's code.

const ROOT = resolve(import.meta.dirname, "../..");
const WORKER = "functions/worker/";
const rel = (path: string) => relative(ROOT, resolve(ROOT, path));

/** Every module under `dir` (tests aside), relative to the repository root. */
function modules(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"))
    .map((f) => join(dir, f));
}

/** The relative module specifiers a source names: imports and re-exports (type-only ones too) and import(). */
function specifiers(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.[^"']*)["']/g)].map((m) => m[1] as string);
}

/** `file → target` for each import of `files` that names a module under functions/worker. */
function directImports(files: string[], read: (file: string) => string): string[] {
  return files.flatMap((file) => specifiers(read(file)).map((s) => rel(join(dirname(file), s))).filter((target) => target.startsWith(WORKER)).map((target) => `${file} → ${target}`));
}

/**
 * `importer → imported` for each import by which `entries` reach functions/worker through other
 * modules, resolved by esbuild as the Lambda bundles are (packages stay external: core cannot import a
 * function). esbuild drops type-only imports, which directImports sees.
 */
async function bundledImports(entries: string[]): Promise<string[]> {
  const { metafile } = await build({ entryPoints: entries.map((e) => join(ROOT, e)), bundle: true, write: false, metafile: true, platform: "node", format: "esm", packages: "external", outdir: "/unused", logLevel: "silent" });
  return Object.entries(metafile.inputs).flatMap(([importer, input]) =>
    input.imports.filter((i) => !i.external && rel(i.path).startsWith(WORKER)).map((i) => `${rel(importer)} → ${rel(i.path)}`),
  );
}

describe("the API's boundaries", () => {
  const api = modules("functions/api");

  it("no module under functions/api imports functions/worker, directly or through another module", async () => {
    expect(api.length).toBeGreaterThan(10);
    expect(directImports(api, (f) => readFileSync(join(ROOT, f), "utf8"))).toEqual([]);
    expect(await bundledImports(api)).toEqual([]);
  });

  // The checks themselves: each must catch what it is there for.
  it.each([
    ['import type { WorkerDeps } from "../../worker/translate-tenant";', "functions/worker/translate-tenant"],
    ['export { createWorker } from "../../worker/handler";', "functions/worker/handler"],
    ['const m = await import("../../worker/poller");', "functions/worker/poller"],
  ])("sees %s", (source, target) => {
    expect(directImports(["functions/api/routes/x.ts"], () => source)).toEqual([`functions/api/routes/x.ts → ${target}`]);
  });

  it("sees the worker reached through a bundle (the local launcher runs it)", async () => {
    expect(await bundledImports(["functions/local/main.ts"])).toContain("functions/local/main.ts → functions/worker/handler.ts");
  });
});
