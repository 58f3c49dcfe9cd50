import { describe, expect, it } from "vitest";
import { backoffMs, jitteredMs } from "./backoff";

describe("backoff", () => {
  it.each([
    [1, 1, 1000],
    [2, 1, 2000],
    [4, 1, 8000],
    [10, 1, 60_000],
    [3, 0.5, 2000],
    [3, 0, 0],
  ])("after %i failures with random %f waits %i ms", (failures, r, ms) => {
    expect(backoffMs(failures, { baseMs: 1000, capMs: 60_000, random: () => r })).toBe(ms);
  });

  it("adds at most the jitter fraction to the interval", () => {
    expect(jitteredMs(15_000, 0.2, () => 0)).toBe(15_000);
    expect(jitteredMs(15_000, 0.2, () => 1)).toBe(18_000);
  });
});
