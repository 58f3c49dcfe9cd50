/**
 * The `meshplane` CLI as a user runs it: bundled once per test file (scripts/build-cli.ts) into a
 * temporary directory, then run as a subprocess with its own config file and no colour.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Cli {
  dir: string;
  bin: string;
  configPath: string;
  run(args: string[], options?: { stdin?: string; env?: Record<string, string | undefined> }): Promise<CliResult>;
  /**
   * Runs the CLI on a pseudo-terminal (util-linux `script`), 120 columns wide, colour allowed: stdout
   * is everything the terminal received, escape sequences included.
   */
  runInTerminal(args: string[]): Promise<CliResult>;
}

const shellQuote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;

/** Runs a command to its end, with what it wrote to each stream. */
const collect = (command: string, args: string[], env: Record<string, string>, stdin: string) =>
  new Promise<CliResult>((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });

export function buildCli(): Cli {
  const dir = mkdtempSync(join(tmpdir(), "meshplane-cli-"));
  const out = join(dir, "dist");
  const built = spawnSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "scripts/build-cli.ts"), out], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(`building the CLI failed:\n${built.stdout}${built.stderr}`);
  const bin = join(out, "meshplane.mjs");
  const configPath = join(dir, "config", "meshplane", "config.json");
  const envOf = (extra: Record<string, string | undefined>): Record<string, string> => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ PATH: process.env.PATH, HOME: dir, MESHPLANE_CONFIG: configPath, ...extra })) if (v !== undefined) env[k] = v;
    return env;
  };
  return {
    dir,
    bin,
    configPath,
    runInTerminal(args) {
      const command = `stty cols 120 rows 40; exec ${[process.execPath, bin, ...args].map(shellQuote).join(" ")}`;
      return collect("script", ["-qefc", command, "/dev/null"], envOf({ TERM: "xterm-256color" }), "");
    },
    run(args, options = {}) {
      return collect(process.execPath, [bin, ...args], envOf({ NO_COLOR: "1", ...options.env }), options.stdin ?? "");
    },
  };
}
