/**
 * `npm run bench -- <name>` runs test/bench/<name>.ts in its own process; each bench prints its
 * figures as one JSON object on its last line.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { benchNames } from "./_names";

const dir = import.meta.dirname;
const names = benchNames(dir);
const name = process.argv[2];
if (!name || !names.includes(name)) {
  console.error(`usage: npm run bench -- <name>\nbenchmarks: ${names.join(", ") || "(none yet)"}`);
  process.exit(2);
}
const tsx = join(dir, "../../node_modules/tsx/dist/cli.mjs");
const out = spawnSync(process.execPath, ["--expose-gc", tsx, join(dir, `${name}.ts`), ...process.argv.slice(3)], { stdio: "inherit" });
process.exit(out.status ?? 1);
