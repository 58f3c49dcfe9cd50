import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Canonicalizer, canonicalJson, translate } from "../../packages/core/src/translate/index";
import { GOLDEN_DIR, goldenCases, readCase } from "./cases";
import { loadInput, renderOutput } from "./render";

// UPDATE_GOLDEN=1 rewrites expected.yaml from the current translator. Review every diff by eye: the
// golden files are the main proof that translation is right.
const update = process.env.UPDATE_GOLDEN === "1";
const cases = goldenCases();

describe("golden translation cases", () => {
  it("has the cases the suite relies on", () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)("%s", (name) => {
    const actual = renderOutput(translate(loadInput(readCase(name, "input.yaml") as string)));
    if (update) {
      writeFileSync(join(GOLDEN_DIR, name, "expected.yaml"), actual);
      return;
    }
    const expected = readCase(name, "expected.yaml");
    expect(expected, `${name}/expected.yaml is missing; run with UPDATE_GOLDEN=1 and review it`).toBeDefined();
    expect(actual).toBe(expected);
  });
});

describe("golden outputs as the agent sees them", () => {
  // The agent receives objects as JSON and recomputes the hash with Canonicalizer; the translator
  // computes it from shared parts. Both must give the same bytes, and the objects must already be
  // in canonical key order so that JSON.stringify alone reproduces them.
  it.each(cases)("%s: hash recomputes from a JSON round trip; objects are canonical", (name) => {
    const output = translate(loadInput(readCase(name, "input.yaml") as string));
    for (const cluster of Object.values(output.clusters)) {
      const received = JSON.parse(JSON.stringify(cluster)) as typeof cluster;
      expect(new Canonicalizer().contentHash(received.objects, received.certificates)).toBe(cluster.hash);
      for (const object of cluster.objects) expect(JSON.stringify(object)).toBe(canonicalJson(object));
    }
  });
});
