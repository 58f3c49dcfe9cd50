import { describe, expect, it } from "vitest";
import { normalizeWeights } from "./traffic-shift";

describe("normalizeWeights", () => {
  it.each([
    [
      [75, 25],
      [75, 25],
    ],
    [
      [1, 1, 1],
      [34, 33, 33],
    ],
    [
      [1, 3],
      [25, 75],
    ],
    [
      [2, 1],
      [67, 33],
    ],
    [
      [10, 0],
      [100, 0],
    ],
    [[100], [100]],
    [[1], [100]],
  ])("%j → %j", (weights, expected) => {
    expect(normalizeWeights(weights)).toEqual(expected);
    expect(expected.reduce((a, b) => a + b, 0)).toBe(100);
  });
});
