import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FunctionBundle, ROOT, bundleFunction } from "./bundle";
import { FUNCTION_ENTRIES } from "./entries";

/** The inputs (repository-relative paths) that went into a bundle's initial files, or its on-demand ones. */
function inputs(bundle: FunctionBundle, initial: boolean): string[] {
  const outputs = Object.entries(bundle.metafile.outputs).filter(([path]) => path.endsWith(".mjs"));
  const files = new Set(bundle.files.filter((f) => f.initial === initial).map((f) => join(bundle.dir, f.file)));
  return outputs
    .filter(([path]) => files.has(join(ROOT, path)))
    .flatMap(([, o]) =>
      Object.entries(o.inputs)
        .filter(([, i]) => i.bytesInOutput > 0)
        .map(([path]) => path),
    );
}

const all = (bundle: FunctionBundle) => [...inputs(bundle, true), ...inputs(bundle, false)];

const out = mkdtempSync(join(tmpdir(), "meshplane-bundle-test-"));
let api: FunctionBundle;
let worker: FunctionBundle;
afterAll(() => rmSync(out, { recursive: true, force: true }));
beforeAll(async () => {
  api = await bundleFunction(join(ROOT, FUNCTION_ENTRIES.api), join(out, "api"));
  worker = await bundleFunction(join(ROOT, FUNCTION_ENTRIES.worker), join(out, "worker"));
}, 120_000);

describe("function bundles", () => {
  it("are an index.mjs with the chunks it loads, sized from the entry's static imports", () => {
    for (const b of [api, worker]) {
      expect(b.files[0]).toMatchObject({ file: "index.mjs", initial: true });
      for (const f of b.files) expect(existsSync(join(b.dir, f.file)), f.file).toBe(true);
      expect(b.files.some((f) => !f.initial)).toBe(true);
      expect(b.initialBytes).toBeLessThan(b.totalBytes);
    }
  });

  it("load the YAML parser and the OpenAPI generator only when a request needs them", () => {
    const lazy = inputs(api, false);
    for (const path of ["node_modules/yaml/dist/parse/parser.js", "functions/http/openapi.ts"]) {
      expect(lazy).toContain(path);
      expect(inputs(api, true)).not.toContain(path);
    }
  });

  it("load X.509 and the translators in the API only when a request needs them (CA uploads, CSRs, plans)", () => {
    const lazy = inputs(api, false);
    for (const path of ["node_modules/@peculiar/x509/build/x509.es.js", "packages/core/src/translate/translate.ts"]) {
      expect(lazy).toContain(path);
      expect(inputs(api, true)).not.toContain(path);
    }
  });

  it("leave out zod's locales other than English", () => {
    for (const b of [api, worker]) expect(all(b).filter((p) => /node_modules\/zod\/v4\/locales\/(?!en\.js)/.test(p))).toEqual([]);
  });

  it("keep re2js out of the worker (only TrafficPolicy validation checks RE2 syntax)", () => {
    expect(all(worker).filter((p) => p.startsWith("node_modules/re2js/"))).toEqual([]);
  });

  it("keep the HTTP framework and the YAML parser out of the worker (core's discovery runs in the agent)", () => {
    expect(all(worker).filter((p) => /node_modules\/(hono|yaml)\//.test(p))).toEqual([]);
  });
});
