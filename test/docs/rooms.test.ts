import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { type Repo, type Room, importsOf, listed, repoAt, roomModules, roomsTable, tableProblems, violations } from "./rooms";

// docs/architecture.md's "Where code lives" table against the tree, and its rules for the packages,
// the stack, the scripts and the tests (functions/boundaries.test.ts holds functions/ to it).

const ROOT = resolve(import.meta.dirname, "../..");
const repo = repoAt(ROOT);
const read = (file: string) => readFileSync(join(ROOT, file), "utf8");
const seen = (file: string, source: string) => violations(repo, [file], () => source);
const without = (place: string): Repo => ({ ...repo, rooms: repo.rooms.filter((r) => r.place !== place) });

describe("the table of rooms (docs/architecture.md, Where code lives)", () => {
  it("has one row per room and per public entry of core, each naming what exists", () => {
    expect(repo.rooms.length).toBeGreaterThan(20);
    expect(tableProblems(repo)).toEqual([]);
  });

  it("sees a folder no row contains, a row with no folder, a public entry without its row, a name that is nothing", () => {
    expect(tableProblems(without("functions/ops"))).toEqual(["functions/ops holds modules but no row of the table contains it"]);
    expect(tableProblems(without("@meshplane/core/views"))).toEqual([
      "@meshplane/core/views is a public entry of core (packages/core/package.json) without a row",
    ]);
    const extra = roomsTable(
      "## Where code lives\n\n| place | what | may import |\n|---|---|---|\n| `functions/gone` | x | `functions/store/nowhere.ts`, `node:` |\n| `@meshplane/core/gone` | x | as core |\n",
    );
    expect(tableProblems({ ...repo, rooms: [...repo.rooms, ...extra] })).toEqual([
      "functions/gone is a row but no folder",
      "@meshplane/core/gone is a row but no public entry",
      "functions/gone may import functions/store/nowhere.ts, which is no room, module or public entry",
    ]);
  });

  it("reads `may import` as names: rooms, modules, entries, wildcards, `type` ones; and a browser room", () => {
    const [row] = roomsTable(
      "## Where code lives\n\n| place | what | may import |\n|---|---|---|\n| `packages/console` | a `|` in code | the API; `@meshplane/core/views`, `type @meshplane/core`, `functions/*`; runs in a browser: no `node:` builtins |\n\nAfter.\n",
    );
    expect(row).toEqual({
      place: "packages/console",
      browser: true,
      mayImport: [
        { name: "@meshplane/core/views", typesOnly: false },
        { name: "@meshplane/core", typesOnly: true },
        { name: "functions/*", typesOnly: false },
      ],
    });
  });

  it("reads imports, re-exports, import() and type-only ones, not comments", () => {
    const source =
      'import a from "./a";\nimport {\n  type B,\n  type C,\n} from "./b";\nexport type { D } from "./d";\nexport * from "./e";\nimport "./f";\n// import g from "./g";\nconst h = await import("./h");\ntype I = typeof import("./i");';
    expect(importsOf(source)).toEqual([
      { specifier: "./a", typeOnly: false },
      { specifier: "./b", typeOnly: true },
      { specifier: "./d", typeOnly: true },
      { specifier: "./e", typeOnly: false },
      { specifier: "./f", typeOnly: false },
      { specifier: "./h", typeOnly: false },
      { specifier: "./i", typeOnly: true },
    ]);
  });
});

describe("the packages, the stack, the scripts and the tests import only what their room may import", () => {
  it("every module outside functions/", () => {
    const modules = roomModules(repo).filter((m) => !m.startsWith("functions/"));
    expect(modules.length).toBeGreaterThan(150);
    expect(violations(repo, modules, read)).toEqual([]);
  });

  it("the stack names the functions only by their entry paths, each a module of functions/entries", () => {
    const entries = [...read("infra/lib/entries.ts").matchAll(/"(functions\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(entries.length).toBeGreaterThan(3);
    for (const entry of entries) expect(roomModules(repo)).toContain(entry);
    expect(entries.every((e) => e.startsWith("functions/entries/"))).toBe(true);
    const elsewhere = roomModules(repo).filter((m) => m.startsWith("infra/") && m !== "infra/lib/entries.ts" && /["'`]functions\//.test(read(m)));
    expect(elsewhere).toEqual([]);
  });

  it("the console's bundle reaches no node: builtin, through any chain", async () => {
    const { metafile } = await build({
      entryPoints: [join(ROOT, "packages/console/src/main.tsx")],
      bundle: true,
      write: false,
      metafile: true,
      platform: "browser",
      format: "esm",
      splitting: true,
      outdir: "/unused",
      jsx: "automatic",
      jsxImportSource: "preact",
      logLevel: "silent",
      external: ["node:*", ...builtinModules],
    });
    const builtins = Object.entries(metafile.inputs).flatMap(([importer, input]) =>
      input.imports.filter((i) => i.external).map((i) => `${importer} → ${i.path}`),
    );
    expect(Object.keys(metafile.inputs).length).toBeGreaterThan(50);
    expect(builtins).toEqual([]);
  });

  // The checks themselves: each kind of rule must catch what it is there for.
  it.each([
    [
      "the agent takes core by its source path",
      "packages/agent/src/x.ts",
      'import { objectKey } from "../../core/src/identity";',
      "packages/core/src/identity.ts",
      "packages/agent",
    ],
    [
      "the CLI imports a function",
      "packages/cli/src/x.ts",
      'import { createApp } from "../../../functions/http/app";',
      "functions/http/app.ts",
      "packages/cli",
    ],
    [
      "the console imports translation",
      "packages/console/src/x.ts",
      'import { translate } from "@meshplane/core/translate";',
      "@meshplane/core/translate",
      "packages/console",
    ],
    [
      "the console takes code, not types, from the whole of core",
      "packages/console/src/x.tsx",
      'import { discover } from "@meshplane/core";',
      "@meshplane/core",
      "packages/console",
    ],
    ["core imports another package", "packages/core/src/x.ts", 'import { ControlPlaneClient } from "@meshplane/agent";', "@meshplane/agent", "packages/core"],
    [
      "core imports a function",
      "packages/core/src/x.ts",
      'import type { Store } from "../../../functions/store/index";',
      "functions/store/index.ts",
      "packages/core",
    ],
    ["the stack imports a function", "infra/lib/x.ts", 'import { handler } from "../../functions/entries/api";', "functions/entries/api.ts", "infra"],
  ])("sees %s", (_, file, source, target, place) => {
    const room = repo.rooms.find((r) => r.place === place) as Room;
    expect(seen(file, source)).toEqual([`${file} → ${target} (room ${place} may import ${listed(room)})`]);
  });

  it("sees a node: builtin in the console", () => {
    expect(seen("packages/console/src/x.ts", 'import { readFileSync } from "node:fs";\nimport { join } from "path";')).toEqual([
      "packages/console/src/x.ts → node:fs (room packages/console runs in a browser: no node: builtins)",
      "packages/console/src/x.ts → path (room packages/console runs in a browser: no node: builtins)",
    ]);
  });

  it.each([
    [
      "the agent uses core's entries",
      "packages/agent/src/x.ts",
      'import { objectKey } from "@meshplane/core";\nimport { translate } from "@meshplane/core/translate";',
    ],
    [
      "the console uses the views, the HTTP client and core's types",
      "packages/console/src/x.ts",
      'import { reasonsOf } from "@meshplane/core/views";\nimport { createHttpClient } from "@meshplane/core/http-client";\nimport type { VirtualMesh } from "@meshplane/core";',
    ],
    ["the stack uses the console's headers", "infra/lib/x.ts", 'import { CONSOLE_SECURITY_HEADERS } from "../../packages/console/headers";'],
    [
      "a test imports anything",
      "test/integration/x.ts",
      'import { createApp } from "../../functions/http/app";\nimport { objectKey } from "../../packages/core/src/identity";',
    ],
  ])("lets pass: %s", (_, file, source) => {
    expect(seen(file, source)).toEqual([]);
  });
});
