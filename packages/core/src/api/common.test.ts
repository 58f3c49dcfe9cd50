import { describe, expect, it } from "vitest";
import { duration, parseDuration } from "./common";

describe("durations", () => {
  it.each([
    ["5s", 5000],
    ["250ms", 250],
    ["1m30s", 90_000],
    ["1h", 3_600_000],
    ["1.5s", 1500],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(duration.safeParse(text).success).toBe(true);
  });

  it.each(["", "5", "5 s", "-1s", "1d", "s", "0s", "0.5ms"])("%j is refused", (text) => {
    expect(duration.safeParse(text).success).toBe(false);
  });
});
