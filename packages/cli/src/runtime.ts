/** What every command needs: the streams it writes to, and a client for the chosen context. */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { type Client, createClient } from "./client";
import { resolveContext } from "./config";
import { VERSION } from "./version";
import type { Streams } from "./output";

export { reportError } from "./output";

export function streamsOf(): Streams {
  return { out: process.stdout, err: process.stderr, env: process.env };
}

/** The options of the command with the global ones (`--context`). */
export function optionsOf<T>(command: Command): T {
  return command.optsWithGlobals() as T;
}

export function clientFor(command: Command): Client {
  const { context } = optionsOf<{ context?: string }>(command);
  const ctx = resolveContext(process.env, context);
  return createClient(ctx.url, ctx.token, { userAgent: `meshplane-cli/${VERSION}` });
}

/** Standard input, whole (for `-f -` and `--token-stdin`). */
export function readStdin(): string {
  // fd 0 read synchronously: the CLI reads its input before doing anything else.
  return readFileSync(0, "utf8");
}
