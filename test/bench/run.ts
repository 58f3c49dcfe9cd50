/**
 * `npm run bench -- <name>` runs test/bench/<name>.ts in its own process; each bench prints its
 * figures as one JSON object on its last line.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

const dir = import.meta.dirname;
const names = readdirSync(dir).filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.includes(".test.") && !f.startsWith("_")).map((f) => f.slice(0, -3));
const name = process.argv[2];
if (!name || !existsSync(join(dir, `${name}.ts`))) {
  console.error(`usage: npm run bench -- <name>\nbenchmarks: ${names.join(", ") || "(none yet)"}`);
  process.exit(2);
}
const tsx = join(dir, "../../node_modules/tsx/dist/cli.mjs");
const out = spawnSync(process.execPath, ["--expose-gc", tsx, join(dir, `${name}.ts`), ...process.argv.slice(3)], { stdio: "inherit" });
process.exit(out.status ?? 1);
