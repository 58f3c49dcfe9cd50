import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const GOLDEN_DIR = dirname(fileURLToPath(import.meta.url));

/** Every golden case directory (one holding an input.yaml), sorted. */
export function goldenCases(): string[] {
  return readdirSync(GOLDEN_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(GOLDEN_DIR, d.name, "input.yaml")))
    .map((d) => d.name)
    .sort();
}

/** The text of `file` in case `name`; undefined when the file does not exist (a new case before UPDATE_GOLDEN=1). */
export function readCase(name: string, file: "input.yaml" | "expected.yaml"): string | undefined {
  const path = join(GOLDEN_DIR, name, file);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}
