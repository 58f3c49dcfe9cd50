import type { StoredResource } from "@meshplane/core/base";
import { describe, expect, it } from "vitest";
import { carriedBy } from "./applied-changes";

const policy = (name: string, version: number, generation: number | undefined, destinations: string[] = []) =>
  ({
    kind: "TrafficPolicy",
    metadata: { name },
    status: {
      observedGeneration: version,
      state: "ACCEPTED",
      destinations: Object.fromEntries(destinations.map((d) => [d, { state: "ACCEPTED" }])),
      ...(generation === undefined ? {} : { clusters: { east: { generation, applied: false } } }),
    },
  }) as unknown as StoredResource;

describe("the versions an applied generation carried", () => {
  it("are changes where they differ from the cluster's previous ones, with the destinations each selects", () => {
    const { versions, changed } = carriedBy(
      [policy("same", 1, 3), policy("edited", 2, 4, ["reviews-shop-east"]), policy("elsewhere", 1, undefined), policy("later", 5, 6)],
      "east",
      4,
      { "TrafficPolicy/same": 1, "TrafficPolicy/edited": 1, "TrafficPolicy/later": 4 },
    );
    expect(changed).toEqual([{ kind: "TrafficPolicy", name: "edited", version: 2, destinations: ["reviews-shop-east"] }]);
    // A version published after the applied generation waits for its own; one not sent to the cluster is dropped.
    expect(versions).toEqual({ "TrafficPolicy/same": 1, "TrafficPolicy/edited": 2, "TrafficPolicy/later": 4 });
  });
});
