import { describe, expect, it } from "vitest";
import { matchesLabels, parseLabelSelector } from "./label-selector";

describe("parseLabelSelector", () => {
  it.each([
    ["", []],
    ["app=web", [{ key: "app", op: "=", value: "web" }]],
    ["app==web", [{ key: "app", op: "=", value: "web" }]],
    ["tier!=db", [{ key: "tier", op: "!=", value: "db" }]],
    ["env in (a, b)", [{ key: "env", op: "in", values: ["a", "b"] }]],
    [
      "env notin (a),app",
      [
        { key: "env", op: "notin", values: ["a"] },
        { key: "app", op: "exists" },
      ],
    ],
    ["!legacy", [{ key: "legacy", op: "!exists" }]],
    ["example.com/team=x", [{ key: "example.com/team", op: "=", value: "x" }]],
  ])("parses %j", (text, expected) => {
    expect(parseLabelSelector(text)).toEqual(expected);
  });

  it.each(["a in (", "a=b c", ",", "a=has space", "a in ()", "=x"])("rejects %j", (text) => {
    expect(() => parseLabelSelector(text)).toThrow(/cannot parse|bad label|bad value|empty term/);
  });
});

describe("matchesLabels", () => {
  const labels = { app: "web", env: "prod" };
  it.each([
    ["app=web", true],
    ["app=api", false],
    ["app!=api", true],
    ["env in (prod,dev)", true],
    ["env notin (prod)", false],
    ["missing notin (x)", true],
    ["app,env", true],
    ["!app", false],
    ["app=web,env=dev", false],
  ])("%s → %s", (text, expected) => {
    expect(matchesLabels(parseLabelSelector(text), labels)).toBe(expected);
  });
});
