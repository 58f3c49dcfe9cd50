/**
 * What Argo CD and Flux make of a meshplane custom resource (docs/gitops.md#argo-cd, docs/gitops.md#flux):
 * the Argo CD health check packages/agent/health/argocd.lua run by Argo CD's own Lua VM (gopher-lua) and
 * by Debian's Lua interpreter (`lua5.4`), and kstatus's own `status.Compute`, both through the helper
 * scripts/kstatus.sh builds from
 * test/support/kstatus/main.go. Also what the status table of docs/gitops.md#status-in-the-cluster
 * says each should answer, so that any object — made by core's `authoredStatus` or written by a real
 * agent into a fixture — can be held to it.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));
/** The Argo CD health check that docs/gitops.md#argo-cd ships. */
export const ARGOCD_SCRIPT = join(repo, "packages/agent/health/argocd.lua");

/** A Kubernetes object as JSON. */
export type KubeObject = Record<string, unknown>;

/** Argo CD's health of one resource: the `hs` the script returns. */
export interface ArgoHealth {
  status: string;
  message: string;
}

/** kstatus's verdict on one resource (`status.Compute`'s Status and Message). */
export interface Kstatus {
  status: string;
  message: string;
}

/** A JSON value as a Lua expression: tables for arrays and objects, `nil` for null, byte-exact strings. */
export function luaLiteral(value: unknown): string {
  if (value === null || value === undefined) return "nil";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`not a JSON number: ${value}`);
    return String(value);
  }
  if (typeof value === "string") {
    // Printable ASCII as is, every other byte (UTF-8 included) as a decimal escape: valid in Lua 5.1 and 5.4.
    const bytes = Buffer.from(value, "utf8");
    let out = "";
    for (const b of bytes) out += b >= 0x20 && b <= 0x7e && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, "0")}`;
    return `"${out}"`;
  }
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(", ")}}`;
  if (typeof value === "object") {
    const fields = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined);
    return `{${fields.map(([k, v]) => `[${luaLiteral(k)}] = ${luaLiteral(v)}`).join(", ")}}`;
  }
  throw new Error(`not a JSON value: ${typeof value}`);
}

/**
 * Loads the script as Argo CD does — a chunk that sees the resource as the global `obj` and returns
 * `hs` — in an environment holding only `obj` and `ipairs`, so a library call Argo CD's sandbox might
 * lack fails here too.
 */
const HARNESS = `local path = arg[1]
local file = assert(io.open(path, "r"))
local source = file:read("a")
file:close()
local chunk = assert(load(source, "@" .. path, "t", { obj = OBJ, ipairs = ipairs }))
local hs = chunk()
assert(type(hs) == "table", "the script returned no table")
io.write(tostring(hs.status), "\\n", tostring(hs.message or ""))
`;

/** The script's `hs` for `object` in Debian's Lua 5.4 (throws with its stderr when the script fails). */
function lua54Health(object: KubeObject, script: string): ArgoHealth {
  const r = spawnSync("lua5.4", ["-", script], { input: `local OBJ = ${luaLiteral(object)}\n${HARNESS}`, encoding: "utf8" });
  if (r.error) throw new Error(`lua5.4: ${r.error.message} (scripts/ensure-deps.sh --java installs it)`);
  if (r.status !== 0) throw new Error(`lua5.4 exited ${r.status}: ${r.stderr}`);
  const newline = r.stdout.indexOf("\n");
  return { status: r.stdout.slice(0, newline), message: r.stdout.slice(newline + 1) };
}

let kstatusBinary: string | undefined;
const helper = (): string =>
  (kstatusBinary ??= execFileSync("bash", [join(repo, "scripts/kstatus.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim());

/** One JSON verdict line per object from the helper (kstatus, or `argocd SCRIPT`), in order. */
function helperVerdicts(args: string[], objects: readonly KubeObject[]): { status: string; message: string }[] {
  const out = execFileSync(helper(), args, { input: JSON.stringify(objects), encoding: "utf8" });
  const lines = out.split("\n").filter((l) => l !== "");
  if (lines.length !== objects.length) throw new Error(`${args[0] ?? "kstatus"} answered ${lines.length} lines for ${objects.length} objects: ${out}`);
  return lines.map((l) => {
    const v = JSON.parse(l) as { status?: string; message?: string; error?: string };
    if (v.error !== undefined) throw new Error(`${args[0] ?? "kstatus"}: ${v.error}`);
    return { status: v.status ?? "", message: v.message ?? "" };
  });
}

/**
 * Argo CD's health of `object` by packages/agent/health/argocd.lua, run twice: in gopher-lua as Argo CD
 * runs a health check (its VM, its libraries, `obj`; the helper's `argocd` mode) and in Debian's Lua 5.4
 * with only `obj` and `ipairs`. Throws when either fails or they disagree.
 */
export function argoHealth(object: KubeObject, script = ARGOCD_SCRIPT): ArgoHealth {
  const [argocd] = helperVerdicts(["argocd", script], [object]);
  const lua54 = lua54Health(object, script);
  if (argocd?.status !== lua54.status || argocd.message !== lua54.message) {
    throw new Error(`Argo CD's Lua VM says ${JSON.stringify(argocd)}, Lua 5.4 says ${JSON.stringify(lua54)}`);
  }
  return lua54;
}

/** kstatus's verdict on each object, in order: one run of the helper scripts/kstatus.sh builds (on first use). */
export function kstatus(objects: readonly KubeObject[]): Kstatus[] {
  return helperVerdicts([], objects);
}

/** What Argo CD and kstatus should both say of a resource. */
export interface Expected {
  argo: "Healthy" | "Progressing" | "Degraded";
  kstatus: "Current" | "InProgress" | "Failed";
}

interface ConditionLike {
  type?: string;
  status?: string;
}

/**
 * What docs/gitops.md#status-in-the-cluster says a resource's status means to Argo CD and Flux: a
 * status about an older generation is in progress; else `Stalled` is failed, `Ready` healthy, and
 * anything else in progress. An object with no status at all is left out (undefined): Argo CD waits,
 * kstatus cannot tell it from a resource no controller owns and calls it current.
 */
export function expectedVerdict(object: KubeObject): Expected | undefined {
  const status = object.status as { observedGeneration?: number; conditions?: ConditionLike[] } | undefined;
  if (status === undefined) return undefined;
  const generation = (object.metadata as { generation?: number } | undefined)?.generation ?? 0;
  const inProgress: Expected = { argo: "Progressing", kstatus: "InProgress" };
  if (status.observedGeneration === undefined || status.observedGeneration < generation) return inProgress;
  const isTrue = (type: string) => (status.conditions ?? []).some((c) => c.type === type && c.status === "True");
  if (isTrue("Stalled")) return { argo: "Degraded", kstatus: "Failed" };
  if (isTrue("Ready")) return { argo: "Healthy", kstatus: "Current" };
  return inProgress;
}

/** One object of a fixture file: where it came from and the object. */
export interface Fixture {
  file: string;
  object: KubeObject;
}

/**
 * The custom resources in the `*.json` files of `dir` (each file one object, an array of them, or a
 * `kind: List` — what `kubectl get -o json` prints), in file order; none when `dir` does not exist.
 * For real statuses written by an agent (test/gitops/fixtures): hold each to `expectedVerdict`.
 */
export function fixtures(dir: string): Fixture[] {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith(".json"))
      .sort();
  } catch {
    return [];
  }
  return files.flatMap((file) => {
    const parsed = JSON.parse(readFileSync(join(dir, file), "utf8")) as KubeObject | KubeObject[];
    const items = Array.isArray(parsed) ? parsed : parsed.kind === "List" ? ((parsed.items as KubeObject[] | undefined) ?? []) : [parsed];
    return items.map((object) => ({ file, object }));
  });
}

/** How both read one object, and what docs/gitops.md says they should (undefined: the object has no status). */
export interface Reading {
  object: KubeObject;
  expected: Expected | undefined;
  argo: ArgoHealth;
  kstatus: Kstatus;
}

/**
 * Argo CD's health, kstatus's verdict and `expectedVerdict` of each object (one kstatus run for all).
 * Holding fixtures to the docs: `for (const r of readings(fixtures(dir).map((f) => f.object)))`
 * expect `r.argo.status` to be `r.expected?.argo` and `r.kstatus.status` to be `r.expected?.kstatus`.
 */
export function readings(objects: readonly KubeObject[]): Reading[] {
  const fromKstatus = kstatus(objects);
  return objects.map((object, i) => ({
    object,
    expected: expectedVerdict(object),
    argo: argoHealth(object),
    kstatus: fromKstatus[i] ?? { status: "", message: "" },
  }));
}
