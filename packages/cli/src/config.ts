/**
 * Contexts: which control plane and credential a command speaks to, kept in the user's config
 * directory (`$XDG_CONFIG_HOME/meshplane/config.json`, else `~/.config/meshplane/config.json`; on
 * Windows `%APPDATA%\meshplane\config.json`), the file mode 0600 in a 0700 directory, as kubectl and
 * the cloud CLIs keep credentials. `MESHPLANE_CONFIG` names another file. For CI,
 * `MESHPLANE_URL` + `MESHPLANE_TOKEN` need no file at all, and `MESHPLANE_CONTEXT` picks a context.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { z } from "zod";

const context = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  token: z.string().min(1),
});
const configFile = z.strictObject({
  current: z.string().optional(),
  contexts: z.record(z.string(), context),
});
export type Context = z.infer<typeof context>;
export type ConfigFile = z.infer<typeof configFile>;

export class UsageError extends Error {}

/** A positive number of seconds given as option `flag`; UsageError naming the flag otherwise. */
export function seconds(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${flag} must be a number of seconds, not "${value}"`);
  return n;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.MESHPLANE_CONFIG) return env.MESHPLANE_CONFIG;
  const base = process.platform === "win32" ? (env.APPDATA ?? join(homedir(), "AppData", "Roaming")) : (env.XDG_CONFIG_HOME ?? join(homedir(), ".config"));
  return join(base, "meshplane", "config.json");
}

export function readConfig(path: string): ConfigFile {
  if (!existsSync(path)) return { contexts: {} };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new UsageError(`${path} is not valid JSON (${(error as Error).message}); fix it or remove it and log in again`);
  }
  const parsed = configFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${path}: ${issue?.path.join(".") || "(file)"} ${issue?.message ?? "is invalid"}; fix it or remove it and log in again`);
  }
  return parsed.data;
}

/** Writes the whole file atomically (a temporary file renamed over it), owner-only. */
export function writeConfig(path: string, config: ConfigFile): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/** The context a command uses: the environment's URL and token, else the named or current context. */
export function resolveContext(env: NodeJS.ProcessEnv, flag: string | undefined): Context & { name: string } {
  if (env.MESHPLANE_URL && env.MESHPLANE_TOKEN && flag === undefined) {
    const parsed = context.safeParse({ url: env.MESHPLANE_URL, token: env.MESHPLANE_TOKEN });
    if (!parsed.success) throw new UsageError(`MESHPLANE_URL must be an http(s) URL, not "${env.MESHPLANE_URL}"`);
    return { name: "(environment)", ...parsed.data };
  }
  const path = configPath(env);
  const config = readConfig(path);
  const name = flag ?? env.MESHPLANE_CONTEXT ?? config.current;
  if (name === undefined) throw new UsageError("not logged in: run `meshplane login --url URL` (or set MESHPLANE_URL and MESHPLANE_TOKEN)");
  const found = config.contexts[name];
  if (found === undefined) throw new UsageError(`no context "${name}" in ${path}; \`meshplane context list\` shows the ones there are`);
  return { name, ...found };
}
