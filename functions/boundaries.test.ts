import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// The API and the worker are deployed as separate Lambda functions; what both need lives in
// functions/shared, functions/store or core, so neither bundle carries the other's code. The CA
// signer is a function of its own too, and the only code that opens a CA key: the API speaks to it
// through its contract (types) and, on AWS, a Lambda invoke — never carrying the signer itself
// (docs/shared-trust.md, "Who can sign").

const ROOT = resolve(import.meta.dirname, "..");
const rel = (path: string) => relative(ROOT, resolve(ROOT, path));

/** A part of the control plane the API must not carry: which modules are in it. */
type Boundary = (module: string) => boolean;
/** The translate job: what the worker runs (input assembly, shared with the plan, is not in it). */
const WORKER: Boundary = (m) => m.startsWith("functions/translation/") && m !== "functions/translation/input.ts";
/** The CA signer, but for what the API may hold of it: its contract and the Lambda invoke. */
const CA_SIGNER: Boundary = (m) => m.startsWith("functions/trust/ca-signer/") && !["functions/trust/ca-signer/contract.ts", "functions/trust/ca-signer/invoke.ts"].includes(m);

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

/** `file → target` for each import of `files` that names a module inside `boundary` (`.ts` added when the specifier has none). */
function directImports(files: string[], read: (file: string) => string, boundary: Boundary = WORKER): string[] {
  return files.flatMap((file) =>
    specifiers(read(file))
      .map((s) => rel(join(dirname(file), s)))
      .filter((target) => boundary(target.endsWith(".ts") ? target : `${target}.ts`))
      .map((target) => `${file} → ${target}`),
  );
}

/**
 * `importer → imported` for each import by which `entries` reach a module inside `boundary` through
 * other modules, resolved by esbuild as the Lambda bundles are (packages stay external: core cannot
 * import a function). esbuild drops type-only imports, which directImports sees.
 */
async function bundledImports(entries: string[], boundary: Boundary = WORKER): Promise<string[]> {
  const { metafile } = await build({ entryPoints: entries.map((e) => join(ROOT, e)), bundle: true, write: false, metafile: true, platform: "node", format: "esm", packages: "external", outdir: "/unused", logLevel: "silent" });
  return Object.entries(metafile.inputs).flatMap(([importer, input]) =>
    input.imports.filter((i) => !i.external && boundary(rel(i.path))).map((i) => `${rel(importer)} → ${rel(i.path)}`),
  );
}

describe("the API's boundaries", () => {
  const api = modules("functions/http");

  it("no module under functions/http imports functions/translation, directly or through another module", async () => {
    expect(api.length).toBeGreaterThan(10);
    expect(directImports(api, (f) => readFileSync(join(ROOT, f), "utf8"))).toEqual([]);
    expect(await bundledImports(api)).toEqual([]);
  });

  // The checks themselves: each must catch what it is there for.
  it.each([
    ['import type { WorkerDeps } from "../../translation/job";', "functions/translation/job"],
    ['export { createWorker } from "../../translation/batch";', "functions/translation/batch"],
    ['const m = await import("../../translation/poller");', "functions/translation/poller"],
  ])("sees %s", (source, target) => {
    expect(directImports(["functions/http/routes/x.ts"], () => source)).toEqual([`functions/http/routes/x.ts → ${target}`]);
  });

  it("sees the worker reached through a bundle (the local launcher runs it)", async () => {
    expect(await bundledImports(["functions/local/main.ts"])).toContain("functions/local/main.ts → functions/translation/batch.ts");
  });

  it("no module under functions/http reaches the CA signer's code (what opens a CA key), directly or through another module: only its contract and the invoke", async () => {
    expect(directImports(api, (f) => readFileSync(join(ROOT, f), "utf8"), CA_SIGNER)).toEqual([]);
    expect(await bundledImports(api, CA_SIGNER)).toEqual([]);
    // What the API does hold of it.
    expect(directImports(["functions/http/routes/certificates.ts"], (f) => readFileSync(join(ROOT, f), "utf8"), (m) => m.startsWith("functions/trust/ca-signer/"))).toEqual(["functions/http/routes/certificates.ts → functions/trust/ca-signer/contract"]);
  });

  it("sees the CA signer reached directly and through a bundle (the local launcher runs it in-process)", async () => {
    expect(directImports(["functions/http/routes/x.ts"], () => 'import { createCsrSigner } from "../../trust/ca-signer/signer";', CA_SIGNER)).toEqual(["functions/http/routes/x.ts → functions/trust/ca-signer/signer"]);
    expect(directImports(["functions/http/routes/x.ts"], () => 'import type { CsrSigner } from "../../trust/ca-signer/contract";', CA_SIGNER)).toEqual([]);
    expect(await bundledImports(["functions/local/main.ts"], CA_SIGNER)).toContain("functions/trust/ca-signer/in-process.ts → functions/trust/ca-signer/signer.ts");
  });
});
