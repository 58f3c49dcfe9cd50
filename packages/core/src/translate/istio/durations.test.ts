import { describe, expect, it } from "vitest";
import { istioDuration } from "./durations";

describe("istioDuration", () => {
  it.each([
    ["5s", "5s"],
    ["1m30s", "90s"],
    ["250ms", "0.25s"],
    ["1h", "3600s"],
    ["1.5ms", "0.0015s"],
    ["60000ms", "60s"],
  ])("%s → %s", (input, output) => {
    expect(istioDuration(input)).toBe(output);
  });

  it("throws on unvalidated input (a bug, not a user error)", () => {
    expect(() => istioDuration("soon")).toThrow(/unvalidated duration/);
  });
});
