import { describe, expect, it } from "vitest";
import { pathRegex } from "./traffic-target";

describe("pathRegex", () => {
  it.each([
    ["*", ".*"],
    ["/api/*", "/api/.*"],
    ["*.json", ".*\\.json"],
    ["/v1.0/books", "/v1\\.0/books"],
  ])("%s → %s", (path, regex) => {
    expect(pathRegex(path)).toBe(regex);
    expect(new RegExp(`^${regex}$`).test(path.replace("*", "x"))).toBe(true);
  });
});
