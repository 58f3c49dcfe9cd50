import { describe, expect, it } from "vitest";
import * as base from "./base";
import * as all from "./index";
import * as pki from "./pki/index";
import * as translate from "./translate/index";
import * as views from "./views/index";

// `@meshplane/core` is every entry of core in one but the HTTP client, core's only I/O, which is
// imported by its own name (docs/architecture.md, "Where code lives"). Its
// index names each export (docs/style.md, habit 12), so a name added to an entry must be added there
// too; this holds the two lists together for every value (tsc holds the types where they are used).
describe("core's entries", () => {
  it.each([
    ["base", base],
    ["pki", pki],
    ["translate", translate],
    ["views", views],
  ] as const)("@meshplane/core exports every value @meshplane/core/%s exports, as the same value", (_, entry) => {
    const missing = Object.keys(entry).filter((name) => (all as Record<string, unknown>)[name] !== (entry as Record<string, unknown>)[name]);
    expect(missing).toEqual([]);
  });
});
