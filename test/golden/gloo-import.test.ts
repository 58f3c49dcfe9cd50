import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { DOCUMENT_SCHEMAS, type UserKind } from "../../packages/core/src/index";
import { formatDocuments, formatReport, importGloo } from "../../packages/cli/src/import/gloo";
import { GOLDEN_DIR } from "./cases";

// Each case under gloo-import/ is a Gloo Mesh v1 input.yaml, the meshplane documents it becomes
// (expected.yaml) and what could not be carried over (dropped.txt). UPDATE_GOLDEN=1 rewrites the
// expected files from the current importer: review every diff by eye.
const update = process.env.UPDATE_GOLDEN === "1";
const dir = join(GOLDEN_DIR, "gloo-import");
const cases = readdirSync(dir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, "input.yaml")))
  .map((d) => d.name)
  .sort();

function read(name: string, file: string): string | undefined {
  const path = join(dir, name, file);
  return existsSync(path) ? readFileSync(path, "utf8") : undefined;
}

describe("golden Gloo Mesh imports", () => {
  it("has the cases the suite relies on", () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it.each(cases)("%s", (name) => {
    const result = importGloo(read(name, "input.yaml") as string);
    const actual = { "expected.yaml": formatDocuments(result.documents), "dropped.txt": formatReport(result) };
    for (const [file, text] of Object.entries(actual)) {
      if (update) {
        writeFileSync(join(dir, name, file), text);
        continue;
      }
      const expected = read(name, file);
      expect(expected, `${name}/${file} is missing; run with UPDATE_GOLDEN=1 and review it`).toBeDefined();
      expect(text, `${name}/${file}`).toBe(expected);
    }
  });

  // What `meshplane apply` will read back: every expected document passes meshplane's own schema.
  it.each(cases)("%s: expected.yaml is valid meshplane input", (name) => {
    const documents = parseAllDocuments(read(name, "expected.yaml") ?? "").map((d) => d.toJS() as { kind: UserKind });
    const problems = documents.flatMap((d, i) => {
      const result = DOCUMENT_SCHEMAS[d.kind].safeParse(d);
      return result.success ? [] : [`documents[${i}]: ${result.error.message}`];
    });
    expect(problems).toEqual([]);
  });
});
