import * as fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchesPlacement, type Placement, PlacementIndex, type PlacementMatcher } from "./placement-index";

const placement = fc.record({
  cluster: fc.constantFrom("c1", "c2", "c3"),
  namespace: fc.constantFrom("a", "b"),
  labels: fc.dictionary(fc.constantFrom("app", "tier", "v"), fc.constantFrom("x", "y"), { maxKeys: 3 }),
});
const matcher: fc.Arbitrary<PlacementMatcher> = fc.record(
  {
    labels: fc.dictionary(fc.constantFrom("app", "tier", "v"), fc.constantFrom("x", "y"), { maxKeys: 2 }),
    namespaces: fc.array(fc.constantFrom("a", "b", "z"), { maxLength: 2 }),
    clusters: fc.array(fc.constantFrom("c1", "c2", "c9"), { maxLength: 2 }),
  },
  { requiredKeys: [] },
);

describe("PlacementIndex", () => {
  it("selects exactly what a full scan selects, in item order", () => {
    fc.assert(
      fc.property(fc.array(placement, { maxLength: 30 }), matcher, (items: Placement[], m) => {
        const index = new PlacementIndex(items, (p) => p);
        const scanned = items.flatMap((p, i) => (matchesPlacement(p, m) ? [i] : []));
        expect(index.positions(m)).toEqual(scanned);
      }),
    );
  });

  it("treats an empty list as matching nothing and an omitted one as matching anything", () => {
    const index = new PlacementIndex([{ cluster: "c", namespace: "n", labels: {} }], (p) => p);
    expect(index.positions({ namespaces: [] })).toEqual([]);
    expect(index.positions({})).toEqual([0]);
  });
});
