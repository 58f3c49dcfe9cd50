import { describe, expect, it } from "vitest";
import { type Paint, unifiedDiff } from "./unified-diff";

const plain: Paint = { bold: (s) => s, cyan: (s) => s, green: (s) => s, red: (s) => s };
const tagged: Paint = { bold: (s) => `<b>${s}`, cyan: (s) => `<c>${s}`, green: (s) => `<g>${s}`, red: (s) => `<r>${s}` };

const policy = (timeout: string) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "cart", labels: { team: "shop" } },
  spec: { policy: { requestTimeout: timeout } },
});

describe("unifiedDiff", () => {
  it("is empty when nothing differs", () => {
    expect(unifiedDiff("TrafficPolicy/cart", policy("2s"), policy("2s"), plain)).toBe("");
  });

  it("shows a change as diff -u does, between live/ and merged/", () => {
    expect(unifiedDiff("TrafficPolicy/cart", policy("2s"), policy("5s"), plain)).toBe(
      [
        "diff -u -N live/TrafficPolicy/cart merged/TrafficPolicy/cart",
        "--- live/TrafficPolicy/cart",
        "+++ merged/TrafficPolicy/cart",
        "@@ -6,4 +6,4 @@",
        "     team: shop",
        " spec:",
        "   policy:",
        "-    requestTimeout: 2s",
        "+    requestTimeout: 5s",
        "",
      ].join("\n"),
    );
  });

  it("shows a new resource all added and a pruned one all removed, with GNU diff's empty ranges", () => {
    const added = unifiedDiff("TrafficPolicy/cart", undefined, policy("2s"), plain).split("\n");
    expect(added.slice(3)).toEqual([
      "@@ -0,0 +1,9 @@",
      "+apiVersion: meshplane.dev/v1",
      "+kind: TrafficPolicy",
      "+metadata:",
      "+  name: cart",
      "+  labels:",
      "+    team: shop",
      "+spec:",
      "+  policy:",
      "+    requestTimeout: 2s",
      "",
    ]);
    const removed = unifiedDiff("TrafficPolicy/cart", policy("2s"), undefined, plain).split("\n");
    expect(removed[3]).toBe("@@ -1,9 +0,0 @@");
    expect(removed.slice(4, -1).every((l) => l.startsWith("-"))).toBe(true);
  });

  it("writes a one-line range as its start alone", () => {
    expect(unifiedDiff("X/y", { a: 1 }, { a: 2 }, plain)).toContain("@@ -1 +1 @@\n-a: 1\n+a: 2\n");
  });

  it("paints headers, hunks, additions and removals, and leaves context alone", () => {
    const lines = unifiedDiff("TrafficPolicy/cart", policy("2s"), policy("5s"), tagged).split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "<b>diff -u -N live/TrafficPolicy/cart merged/TrafficPolicy/cart",
      "<b>--- live/TrafficPolicy/cart",
      "<b>+++ merged/TrafficPolicy/cart",
      "<c>@@ -6,4 +6,4 @@",
    ]);
    expect(lines.slice(4, 9)).toEqual(["     team: shop", " spec:", "   policy:", "<r>-    requestTimeout: 2s", "<g>+    requestTimeout: 5s"]);
  });
});
