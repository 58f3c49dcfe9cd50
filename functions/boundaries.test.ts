import { readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { type Room, listed, mayImport, modulesUnder, repoAt, roomOf, violations } from "../test/docs/rooms";

// The rooms of functions/ and what each may import are docs/architecture.md's "Where code lives"
// table; this test holds every import of every module under functions/ to it (test/docs/rooms.ts
// reads the table). The API, the worker and the CA signer are separate Lambda functions: the API's
// bundle carries neither the translate job nor the CA signer's code — the only code that opens a CA key
// (docs/shared-trust.md, "Who can sign") — through any chain of imports, which esbuild resolves as the
// Lambda bundles are.

const ROOT = resolve(import.meta.dirname, "..");
const repo = repoAt(ROOT);
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const rel = (path: string) => relative(ROOT, resolve(ROOT, path));
const room = (place: string) => repo.rooms.find((r) => r.place === place) as Room;
const HTTP = room("functions/http");
/** The end of a violation's message: what the room of `place` may import. */
const only = (place: string) => `(room ${place} may import ${listed(room(place))})`;

/** What `source`, as the module `file`, imports against the table (a made-up module: the file need not exist). */
const seen = (file: string, source: string) => violations(repo, [file], () => source);

/**
 * `importer → imported (…)` for each import of the bundle of `entries` (packages external: core
 * imports no function) that reaches a module of functions/ which `room` may not import itself.
 * esbuild drops type-only imports, which `violations` sees.
 */
async function bundled(entries: string[], by: Room = HTTP): Promise<string[]> {
  const { metafile } = await build({
    entryPoints: entries.map((e) => join(ROOT, e)),
    bundle: true,
    write: false,
    metafile: true,
    platform: "node",
    format: "esm",
    packages: "external",
    outdir: "/unused",
    logLevel: "silent",
  });
  return Object.entries(metafile.inputs).flatMap(([importer, input]) =>
    input.imports
      .filter((i) => !i.external && rel(i.path).startsWith("functions/") && !mayImport(repo, by, rel(i.path), false))
      .map((i) => `${rel(importer)} → ${rel(i.path)} (room ${by.place} may import ${listed(by)})`),
  );
}

describe("the rooms of functions/ (docs/architecture.md, Where code lives)", () => {
  const modules = modulesUnder(ROOT, "functions");

  it("every module under functions/ imports only what its room may import", () => {
    expect(modules.length).toBeGreaterThan(80);
    expect(violations(repo, modules, read)).toEqual([]);
  });

  it("the API's bundle carries neither the translate job nor the CA signer's code, through any chain", async () => {
    const api = modules.filter((m) => roomOf(repo, m) === HTTP);
    expect(api.length).toBeGreaterThan(10);
    expect(await bundled(api)).toEqual([]);
  });

  // The checks themselves: each kind of rule must catch what it is there for.
  it.each([
    [
      "the API imports the translate job",
      "functions/http/routes/x.ts",
      'import type { WorkerDeps } from "../../translation/job";',
      "functions/translation/job.ts",
    ],
    [
      "the API re-exports the job's batch",
      "functions/http/routes/x.ts",
      'export { createWorker } from "../../translation/batch";',
      "functions/translation/batch.ts",
    ],
    ["the API loads the local poller", "functions/http/routes/x.ts", 'const m = await import("../../translation/poller");', "functions/translation/poller.ts"],
    [
      "the API imports the CA signer itself",
      "functions/http/routes/x.ts",
      'import { createCsrSigner } from "../../trust/ca-signer/signer";',
      "functions/trust/ca-signer/signer.ts",
    ],
    [
      "the API takes code, not a type, from the snapshot signer",
      "functions/http/x.ts",
      'import { b64url } from "../signer/signer";',
      "functions/signer/signer.ts",
    ],
    ["the store runs back up to trust", "functions/store/x.ts", 'import { Authority } from "../trust/authority";', "functions/trust/authority.ts"],
    ["shared runs up to the store", "functions/shared/x.ts", 'import type { Store } from "../store/index";', "functions/store/index.ts"],
    ["auth takes hono's context from the API", "functions/auth/x.ts", 'import type { AppEnv } from "../http/context";', "functions/http/context.ts"],
    ["push runs up to the API", "functions/push/x.ts", 'import { problem } from "../http/problem";', "functions/http/problem.ts"],
    ["the job runs up to the API", "functions/translation/x.ts", 'import { route } from "../http/route";', "functions/http/route.ts"],
    [
      "the job imports the composition root",
      "functions/translation/x.ts",
      'import { createRuntime } from "../entries/runtime";',
      "functions/entries/runtime.ts",
    ],
    [
      "trust reaches into the CA signer",
      "functions/trust/x.ts",
      'import { createCsrSigner } from "./ca-signer/signer";',
      "functions/trust/ca-signer/signer.ts",
    ],
    ["ops imports the API", "functions/ops/x.ts", 'import { createApp } from "../http/app";', "functions/http/app.ts"],
    [
      "a function takes core by its source path",
      "functions/store/x.ts",
      'import { objectKey } from "../../packages/core/src/identity";',
      "packages/core/src/identity.ts",
    ],
    ["a Lambda room loads the whole of core", "functions/store/x.ts", 'import { discover } from "@meshplane/core";', "@meshplane/core"],
  ])("sees %s", (_, file, source, target) => {
    expect(seen(file, source)).toEqual([`${file} → ${target} ${only(roomOf(repo, file)?.place as string)}`]);
  });

  it.each([
    [
      "the API holds the CA signer's contract and invoke",
      "functions/http/x.ts",
      'import type { CsrSigner } from "../trust/ca-signer/contract";\nimport { LambdaCsrSigner } from "../trust/ca-signer/invoke";',
    ],
    [
      "the API takes the snapshot signer's type",
      "functions/http/x.ts",
      'import type { Signer } from "../signer/signer";\nimport { type Signer as S } from "../signer/signer";',
    ],
    ["the plan shares the job's input", "functions/http/routes/x.ts", 'import { translateInput } from "../../translation/input";'],
    ["the CA signer uses trust", "functions/trust/ca-signer/x.ts", 'import { Authority } from "../authority";'],
    [
      "the launcher runs everything",
      "functions/local/x.ts",
      'import { createRuntime } from "../entries/runtime";\nimport { createWorker } from "../translation/batch";',
    ],
    [
      "a comment names what the room may not import",
      "functions/store/x.ts",
      '// import { Authority } from "../trust/authority";\n/**\n * import("../trust/authority")\n */',
    ],
  ])("lets pass: %s", (_, file, source) => {
    expect(seen(file, source)).toEqual([]);
  });

  it("sees an import of no module, and a package path no entry exports", () => {
    expect(seen("functions/store/x.ts", 'import { y } from "./nowhere";\nimport { z } from "@meshplane/core/src/identity";')).toEqual([
      "functions/store/x.ts → ./nowhere (no such module)",
      'functions/store/x.ts → @meshplane/core/src/identity (not a public entry: its package.json\'s "exports" lists none)',
    ]);
  });

  it("sees the job and the CA signer reached through a bundle (the local launcher runs both)", async () => {
    const reached = await bundled(["functions/local/main.ts"]);
    expect(reached).toContain(`functions/local/main.ts → functions/translation/batch.ts ${only("functions/http")}`);
    expect(reached).toContain(`functions/trust/ca-signer/in-process.ts → functions/trust/ca-signer/signer.ts ${only("functions/http")}`);
  });
});
