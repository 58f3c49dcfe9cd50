/**
 * `meshplane diff`'s output, as `kubectl diff` prints it (`diff -u -N`): per resource a `diff` line,
 * `--- live/<Kind>/<name>` and `+++ merged/<Kind>/<name>`, then hunks of its YAML with three lines
 * of context; a resource that does not exist yet is all added, one that would be pruned all removed.
 */
import { structuredPatch } from "diff";
import { stringify } from "yaml";

/** How lines are painted: colours on a terminal, the identity otherwise. */
export interface Paint {
  bold(s: string): string;
  cyan(s: string): string;
  green(s: string): string;
  red(s: string): string;
}

/** The YAML a stored form is compared as: block style, long strings never folded. */
export const yamlOf = (value: unknown): string => (value === undefined ? "" : stringify(value, { lineWidth: 0 }));

/** A hunk's range as GNU diff writes it: `start,count`, `start` alone for one line, `start-1,0` for none. */
const range = (start: number, count: number) => (count === 1 ? `${start}` : count === 0 ? `${start - 1},0` : `${start},${count}`);

/**
 * The unified diff of one resource from `live` (undefined: not stored) to `merged` (undefined: would be
 * deleted), both already in their stored form; the empty string when they are the same.
 */
export function unifiedDiff(key: string, live: unknown, merged: unknown, paint: Paint): string {
  const from = `live/${key}`;
  const to = `merged/${key}`;
  const { hunks } = structuredPatch(from, to, yamlOf(live), yamlOf(merged), "", "", { context: 3 });
  if (hunks.length === 0) return "";
  const out = [paint.bold(`diff -u -N ${from} ${to}`), paint.bold(`--- ${from}`), paint.bold(`+++ ${to}`)];
  for (const hunk of hunks) {
    out.push(paint.cyan(`@@ -${range(hunk.oldStart, hunk.oldLines)} +${range(hunk.newStart, hunk.newLines)} @@`));
    for (const line of hunk.lines) out.push(line.startsWith("+") ? paint.green(line) : line.startsWith("-") ? paint.red(line) : line);
  }
  return `${out.join("\n")}\n`;
}
