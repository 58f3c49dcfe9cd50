import { describe, expect, it } from "vitest";
import { gatewayDuration } from "./durations";

describe("gatewayDuration", () => {
  it.each([
    ["5s", "5s"],
    ["0s", "0s"],
    ["0ms", "0s"],
    ["90s", "1m30s"],
    ["1m30s", "1m30s"],
    ["250ms", "250ms"],
    ["1.5s", "1s500ms"],
    ["1h", "1h"],
    ["3600s", "1h"],
    ["60000ms", "1m"],
    ["1h0m1ms", "1h1ms"],
    ["26h", "26h"],
    ["99999h59m59s999ms", "99999h59m59s999ms"],
  ])("%s → %s", (input, output) => {
    expect(gatewayDuration(input)).toBe(output);
    // Gateway API's pattern for Duration.
    expect(output).toMatch(/^([0-9]{1,5}(h|m|s|ms)){1,4}$/);
  });

  it.each(["100000h", "2562047h"])("%s is longer than Gateway API can write", (input) => {
    expect(gatewayDuration(input)).toBeUndefined();
  });

  it("throws on unvalidated input (a bug, not a user error)", () => {
    expect(() => gatewayDuration("soon")).toThrow(/unvalidated duration/);
  });
});
