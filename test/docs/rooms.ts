/**
 * The rooms of the repository and what each may import, as docs/architecture.md's "Where code lives"
 * table states them, and the check that holds every module to them.
 *
 * - **The table.** One row per room: `place` (a folder, or a public entry `@meshplane/<package>[/<entry>]`
 *   of a package), what lives there, and `may import` — names in backticks: a room's place; a module
 *   (`functions/translation/input.ts`: that module only); a package entry (`@meshplane/core/views`: that
 *   entry; `@meshplane/core`: any entry its package.json exports); `functions/*` (every room under
 *   functions/); `*` (anything); `type <name>` (the same, in type-only imports). "no `node:` builtins"
 *   marks a room whose code runs in a browser. A room imports its own modules freely.
 * - **The check.** Every import of every module that is not a test (`*.test.ts`), whether a relative
 *   path (resolved to its file, whose room is the row with the longest place containing it) or a
 *   `@meshplane/...` package entry, must name what its room may import. npm packages are not rooms:
 *   only a browser room's `node:` builtins are checked.
 */
import { builtinModules } from "node:module";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/** A name a room may import; `typesOnly` when the table says `type <name>`. */
export interface Allowed {
  name: string;
  typesOnly: boolean;
}

/** One row of the table. */
export interface Room {
  place: string;
  mayImport: Allowed[];
  /** Its code runs in a browser: no `node:` builtins. */
  browser: boolean;
}

/** One import (or re-export, or `import()`) of a module. */
export interface Import {
  specifier: string;
  /** `import type`, `export type`, every name `type`-marked, or `typeof import(...)`. */
  typeOnly: boolean;
}

/** The repository as the check sees it: its rooms and its packages' public entries. */
export interface Repo {
  root: string;
  rooms: Room[];
  /** `@meshplane/core/views` → the file it exports, for every workspace package's `exports`. */
  entries: Map<string, string>;
}

const SECTION = "## Where code lives";

/** The rows of the "Where code lives" table of `markdown` (docs/architecture.md). */
export function roomsTable(markdown: string): Room[] {
  const start = markdown.indexOf(SECTION);
  if (start < 0) throw new Error(`no "${SECTION}" section`);
  const lines = markdown.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const end = lines.findIndex((l, i) => i > first && !l.startsWith("|"));
  // The header and the |---| line aside.
  return lines.slice(first + 2, end < 0 ? undefined : end).map((line) => {
    const cells = cellsOf(line);
    const place = /^`([^`]+)`$/.exec(cells[0]?.trim() ?? "")?.[1];
    if (!place || cells.length !== 3) throw new Error(`not a room row (\`place\` | what | may import): ${line}`);
    const may = cells[2] as string;
    const names = [...may.matchAll(/`([^`]+)`/g)].flatMap(([, name]) => {
      const typesOnly = (name as string).startsWith("type ");
      const bare = typesOnly ? (name as string).slice(5) : (name as string);
      return isName(bare) ? [{ name: bare, typesOnly }] : [];
    });
    return { place, mayImport: names, browser: may.includes("no `node:` builtins") };
  });
}

/** A table cell splits at `|` outside code spans. */
function cellsOf(line: string): string[] {
  const cells: string[] = [];
  let cell = "";
  let code = false;
  for (const ch of line.trim().slice(1, -1)) {
    if (ch === "`") code = !code;
    if (ch === "|" && !code) {
      cells.push(cell.trim());
      cell = "";
    } else cell += ch;
  }
  return [...cells, cell.trim()];
}

/** A room, module, package entry or wildcard, as opposed to other code in the cell (`node:`). */
const isName = (name: string) => name === "*" || /^(functions|packages|infra|test|scripts)(\/[\w.*-]+)*$|^@meshplane\/[\w-]+(\/[\w-]+)?$/.test(name);

/** The repository at `root`: docs/architecture.md's rooms and the workspaces' public entries. */
export function repoAt(root: string): Repo {
  const rooms = roomsTable(readFileSync(join(root, "docs/architecture.md"), "utf8"));
  const entries = new Map<string, string>();
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces: string[] };
  for (const dir of workspaces) {
    const pkg = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string; exports?: Record<string, string> };
    for (const [sub, file] of Object.entries(pkg.exports ?? {})) entries.set(sub === "." ? pkg.name : `${pkg.name}/${sub.slice(2)}`, join(dir, file));
  }
  return { root, rooms, entries };
}

/** The imports a TypeScript source names (static ones start a line; comment lines are skipped). */
export function importsOf(source: string): Import[] {
  const found: { at: number; imp: Import }[] = [];
  for (const m of source.matchAll(/^[ \t]*(import|export)\s+(type\s+)?([\w$*{},\s]*?)\s*from\s*["']([^"']+)["']/gm)) {
    const names = (m[3] ?? "")
      .replace(/[{}]/g, "")
      .split(",")
      .map((n) => n.trim())
      .filter(Boolean);
    const typeOnly = Boolean(m[2]) || (/^\s*\{/.test(m[3] ?? "") && names.length > 0 && names.every((n) => n.startsWith("type ")));
    found.push({ at: m.index, imp: { specifier: m[4] as string, typeOnly } });
  }
  for (const m of source.matchAll(/^[ \t]*import\s*["']([^"']+)["']/gm)) found.push({ at: m.index, imp: { specifier: m[1] as string, typeOnly: false } });
  for (const m of source.matchAll(/(typeof\s+)?\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) {
    const line = source.slice(source.lastIndexOf("\n", m.index) + 1, m.index);
    if (/^\s*(\*|\/\*)|\/\//.test(line)) continue;
    found.push({ at: m.index, imp: { specifier: m[2] as string, typeOnly: Boolean(m[1]) } });
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.imp);
}

/** The room of `path` (relative to the root): the row with the longest place containing it. */
export function roomOf(repo: Repo, path: string): Room | undefined {
  return repo.rooms
    .filter((r) => !r.place.startsWith("@") && (path === r.place || path.startsWith(`${r.place}/`)))
    .sort((a, b) => b.place.length - a.place.length)[0];
}

const SOURCE = [".ts", ".tsx"];
const isModule = (f: string) => SOURCE.some((x) => f.endsWith(x)) && !/\.test\.tsx?$/.test(f) && !f.endsWith(".d.ts");
const SKIP = new Set(["node_modules", "dist", "cdk.out", ".meshplane"]);

/** Every module (tests aside) under `dir`, relative to the root. */
export function modulesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(join(root, d), { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) walk(join(d, e.name));
      } else if (isModule(e.name)) out.push(join(d, e.name));
    }
  };
  walk(dir);
  return out.sort();
}

/** The file a relative specifier of `from` names, relative to the root, if there is one. */
function resolveRelative(root: string, from: string, specifier: string): string | undefined {
  const base = relative(root, resolve(root, dirname(from), specifier));
  const stem = base.replace(/\.(js|ts|tsx)$/, "");
  const candidates = [base, ...SOURCE.map((x) => stem + x), ...SOURCE.map((x) => join(base, `index${x}`))];
  return candidates.find((c) => existsSync(join(root, c)) && statSync(join(root, c)).isFile());
}

/** `a, b, c` or "nothing but its own modules". */
export const listed = (room: Room) =>
  room.mayImport.length === 0 ? "nothing but its own modules" : `only ${room.mayImport.map((a) => (a.typesOnly ? `type ${a.name}` : a.name)).join(", ")}`;

/** Whether `room` may import `target`: a file (relative to the root) or a package entry (`@meshplane/...`). */
export function mayImport(repo: Repo, room: Room, target: string, typeOnly: boolean): boolean {
  const targetRoom = target.startsWith("@") ? undefined : roomOf(repo, target);
  if (targetRoom === room) return true;
  return room.mayImport.some(({ name, typesOnly }) => {
    if (typesOnly && !typeOnly) return false;
    if (name === "*") return true;
    if (name === "functions/*") return targetRoom?.place.startsWith("functions/") ?? false;
    // A package's name allows each of its entries; an entry's name, that entry.
    if (name.startsWith("@")) return target === name || (name.split("/").length === 2 && target.startsWith(`${name}/`));
    return targetRoom?.place === name || target === name;
  });
}

/**
 * `file → target (room X may import only …)` for every import of `files` (relative to the root) that
 * runs outside what its room may import; `read` gives a file's source.
 */
export function violations(repo: Repo, files: string[], read: (file: string) => string): string[] {
  const out: string[] = [];
  for (const file of files) {
    const room = roomOf(repo, file);
    if (!room) {
      out.push(`${file} is in no room of docs/architecture.md's "Where code lives"`);
      continue;
    }
    for (const { specifier, typeOnly } of importsOf(read(file))) {
      if (specifier.startsWith(".")) {
        const target = resolveRelative(repo.root, file, specifier);
        if (!target) out.push(`${file} → ${specifier} (no such module)`);
        else if (!mayImport(repo, room, target, typeOnly)) out.push(`${file} → ${target} (room ${room.place} may import ${listed(room)})`);
      } else if (specifier.startsWith("@meshplane/")) {
        if (!repo.entries.has(specifier)) out.push(`${file} → ${specifier} (not a public entry: its package.json's "exports" lists none)`);
        else if (!mayImport(repo, room, specifier, typeOnly)) out.push(`${file} → ${specifier} (room ${room.place} may import ${listed(room)})`);
      } else if (room.browser && (specifier.startsWith("node:") || builtinModules.includes(specifier.split("/")[0] as string))) {
        out.push(`${file} → ${specifier} (room ${room.place} runs in a browser: no node: builtins)`);
      }
    }
  }
  return out;
}

/** Every module (tests aside) in the rooms of the table, relative to the root. */
export function roomModules(repo: Repo): string[] {
  const places = repo.rooms.map((r) => r.place).filter((p) => !p.startsWith("@") && existsSync(join(repo.root, p)));
  return [...new Set(places.flatMap((p) => modulesUnder(repo.root, p)))].sort();
}

/**
 * Where the table and the tree disagree: a place twice, a room's folder missing, a public entry of core
 * without its row (or a row naming none), a name in `may import` that is no room, module or entry, a
 * folder under functions/ or packages/<name>/src holding modules that no row contains.
 */
export function tableProblems(repo: Repo): string[] {
  const problems: string[] = [];
  const places = repo.rooms.map((r) => r.place);
  for (const place of new Set(places.filter((p, i) => places.indexOf(p) !== i))) problems.push(`${place} has two rows`);
  for (const place of places.filter((p) => !p.startsWith("@"))) {
    if (!existsSync(join(repo.root, place)) || !statSync(join(repo.root, place)).isDirectory()) problems.push(`${place} is a row but no folder`);
  }
  const coreEntries = [...repo.entries.keys()].filter((e) => e === "@meshplane/core" || e.startsWith("@meshplane/core/"));
  for (const entry of coreEntries.filter((e) => !places.includes(e)))
    problems.push(`${entry} is a public entry of core (packages/core/package.json) without a row`);
  for (const place of places.filter((p) => p.startsWith("@") && !repo.entries.has(p))) problems.push(`${place} is a row but no public entry`);
  const isPackage = (name: string) => [...repo.entries.keys()].some((e) => e === name || e.startsWith(`${name}/`));
  for (const room of repo.rooms.filter((r) => !r.place.startsWith("@"))) {
    for (const { name } of room.mayImport) {
      const known =
        name === "*" ||
        name === "functions/*" ||
        places.includes(name) ||
        isPackage(name) ||
        (existsSync(join(repo.root, name)) && statSync(join(repo.root, name)).isFile());
      if (!known) problems.push(`${room.place} may import ${name}, which is no room, module or public entry`);
    }
  }
  const packages = readdirSync(join(repo.root, "packages")).map((p) => `packages/${p}/src`);
  for (const dir of ["functions", ...packages.filter((p) => existsSync(join(repo.root, p)))]) {
    for (const folder of new Set(modulesUnder(repo.root, dir).map((m) => dirname(m)))) {
      if (!roomOf(repo, folder)) problems.push(`${folder} holds modules but no row of the table contains it`);
    }
  }
  return problems;
}
