import { describe, expect, it } from "vitest";
import { UsageError } from "../config";
import { pruneScope } from "./prune";

describe("pruneScope", () => {
  it("is nothing without --prune", () => {
    expect(pruneScope({})).toBeUndefined();
    expect(pruneScope({ pruneAllowlist: [] })).toBeUndefined();
  });

  it("looks at every user kind by default, or the kinds --prune-allowlist names, each once", () => {
    expect(pruneScope({ prune: true, selector: "team=shop" })?.kinds.map((k) => k.kind)).toEqual(["VirtualMesh", "TrafficPolicy", "AccessPolicy"]);
    const narrowed = pruneScope({ prune: true, selector: "team=shop,tier in (a,b)", pruneAllowlist: ["ap", "TrafficPolicy", "tp"] });
    expect(narrowed?.kinds.map((k) => k.kind)).toEqual(["TrafficPolicy", "AccessPolicy"]);
    expect(narrowed?.requirements).toHaveLength(2);
  });

  it.each([
    [{ prune: true }, "--prune needs -l SELECTOR"],
    [{ prune: true, selector: " " }, "--prune needs -l SELECTOR"],
    [{ selector: "team=shop" }, "-l chooses what --prune deletes"],
    [{ pruneAllowlist: ["tp"] }, "--prune-allowlist narrows --prune"],
    [{ prune: true, selector: "team in ()" }, '-l "team in ()": bad value set'],
    [{ prune: true, selector: "team!=shop" }, "also matches resources without labels"],
    [{ prune: true, selector: "!legacy,team notin (a)" }, "also matches resources without labels"],
    [{ prune: true, selector: "team=shop", pruneAllowlist: ["destinations", "nope"] }, "not destinations, nope"],
  ])("refuses %j, saying why", (o, message) => {
    expect(() => pruneScope(o)).toThrow(UsageError);
    expect(() => pruneScope(o)).toThrow(message);
  });
});
