/**
 * How fast `meshplane` starts: the bundled CLI (scripts/build-cli.ts) run RUNS times for `--version`
 * and for `--help`, beside a bare `node -e 0` on the same machine. The aim: `--version` under 150 ms.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./_harness";

const RUNS = Number(process.env.RUNS ?? 20);
const root = join(import.meta.dirname, "../..");
const out = join(mkdtempSync(join(tmpdir(), "meshplane-cli-bench-")), "dist");
const built = spawnSync(process.execPath, [join(root, "node_modules/tsx/dist/cli.mjs"), join(root, "scripts/build-cli.ts"), out], { encoding: "utf8" });
if (built.status !== 0) throw new Error(built.stderr);
const bin = join(out, "meshplane.mjs");
const { version: expected } = JSON.parse(readFileSync(join(root, "packages/cli/package.json"), "utf8")) as { version: string };
const said = spawnSync(process.execPath, [bin, "--version"], { encoding: "utf8" }).stdout.trim();
if (!said.includes(expected)) throw new Error(`meshplane --version printed ${JSON.stringify(said)}, not version ${expected}`);

function time(args: string[]): number[] {
  const runs: number[] = [];
  for (let i = 0; i < RUNS + 2; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
    if (i >= 2) runs.push(performance.now() - start); // the first two warm the file cache
  }
  return runs.sort((a, b) => a - b);
}

const node = time(["-e", "0"]);
const version = time([bin, "--version"]);
const help = time([bin, "--help"]);
const figures = {
  bench: "cli-start",
  runs: RUNS,
  node_p50_ms: Number(percentile(node, 50).toFixed(1)),
  version_p50_ms: Number(percentile(version, 50).toFixed(1)),
  version_p90_ms: Number(percentile(version, 90).toFixed(1)),
  help_p50_ms: Number(percentile(help, 50).toFixed(1)),
  entry_kib: Math.round(statSync(bin).size / 1024),
};
console.log(`meshplane --version: p50 ${figures.version_p50_ms} ms (node alone ${figures.node_p50_ms} ms), --help p50 ${figures.help_p50_ms} ms`);
console.log(JSON.stringify(figures));
