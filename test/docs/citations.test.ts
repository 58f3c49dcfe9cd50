import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkLink } from "./docs-check";

/**
 * Every design rule a comment cites lives in the repository: a citation names `docs/<file>.md`, and
 * its `#anchor`, if any, is a heading of that file. Design documents outside the repository (an
 * `API.md`, `STYLE.md` or `ARCHITECTURE.md` in capitals) are cited nowhere — a newcomer could not
 * follow them (docs/style.md, habit 12).
 */
const ROOT = resolve(import.meta.dirname, "../..");
const CITATION = /\bdocs\/[\w.-]+\.md(?:#[\w.-]+)?/g;
const OUTSIDE = /\b(?:API|STYLE|ARCHITECTURE)\.md\b/;

/** The sources git tracks (tests included), with their text. */
function sources(): { file: string; text: string }[] {
  const files = execFileSync("git", ["ls-files", "*.ts", "*.tsx", "*.sh", "*.go", "*.yaml", "*.mjs"], { cwd: ROOT, encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  return files.map((file) => ({ file, text: readFileSync(join(ROOT, file), "utf8") }));
}

/** `file:line: problem` for each citation in `text` that does not resolve, and each one that points outside. */
export function citationProblems(file: string, text: string): string[] {
  return text.split("\n").flatMap((line, i) => [
    ...(OUTSIDE.test(line) ? [`${file}:${i + 1}: cites a design document outside the repository`] : []),
    ...[...line.matchAll(CITATION)].flatMap((m) => {
      const problem = checkLink(ROOT, "README.md", m[0], new Set());
      return problem === undefined ? [] : [`${file}:${i + 1}: ${problem}`];
    }),
  ]);
}

describe("citations in the code", () => {
  it("name docs that exist, at headings that exist, and nothing outside the repository", () => {
    const problems = sources()
      // The docs checks' own tests cite made-up docs on purpose.
      .filter(({ file }) => !["test/docs/citations.test.ts", "test/docs/rooms.test.ts", "test/docs/docs-check.test.ts"].includes(file))
      .flatMap(({ file, text }) => citationProblems(file, text));
    expect(problems).toEqual([]);
  });

  it.each([
    ["// the rule (docs/style.md#12-small-named-explained)", []],
    ["// see docs/resources.md#envelope", []],
    ["// see docs/nope.md", ["x.ts:1: link docs/nope.md: docs/nope.md does not exist"]],
    ["// see docs/resources.md#no-such-heading", ["x.ts:1: link docs/resources.md#no-such-heading: docs/resources.md has no heading #no-such-heading"]],
    ["// (API.md §5)", ["x.ts:1: cites a design document outside the repository"]],
    ["// STYLE.md 10", ["x.ts:1: cites a design document outside the repository"]],
  ])("sees %s", (line, expected) => {
    expect(citationProblems("x.ts", line)).toEqual(expected);
  });
});
