/** `npm start`'s launcher as its own process (functions/local/main.ts), as a newcomer runs it. */
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");

export interface Running {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

export function launch(args: string[], env: NodeJS.ProcessEnv = process.env): Running {
  const child = spawn(process.execPath, [TSX, "functions/local/main.ts", ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  return { child, output: () => out, exit };
}

/** Waits until the launcher has printed `text`; throws with its output when it exits or takes longer than `ms`. */
export async function waitFor(run: Running, text: string, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!run.output().includes(text)) {
    if (run.child.exitCode !== null) throw new Error(`launcher exited: ${run.output()}`);
    if (Date.now() > deadline) throw new Error(`no "${text}" in: ${run.output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const adminTokenOf = (output: string) => /admin token \(shown once[^)]*\): (mpt_\S+)/.exec(output)?.[1] as string;
export const operatorTokenOf = (output: string) => /operator credential \(shown once[^)]*\): (mpo_\S+)/.exec(output)?.[1] as string;
