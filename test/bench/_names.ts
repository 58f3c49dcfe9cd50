import { readdirSync } from "node:fs";

/**
 * The benches `npm run bench -- <name>` runs: test/bench/<name>.ts, leaving out run.ts, tests and
 * the modules benches share (named `_…`). Sorted.
 */
export function benchNames(dir: string = import.meta.dirname): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && f !== "run.ts" && !f.includes(".test.") && !f.startsWith("_"))
    .map((f) => f.slice(0, -3))
    .sort();
}
