import { describe, expect, it } from "vitest";
import type { StoredResource } from "../../api/index";
import { AcceptanceCounter, acceptanceOrder } from "./acceptance";

function policy(name: string, createdAt: string, order?: number): StoredResource<"TrafficPolicy"> {
  return {
    apiVersion: "meshplane.dev/v1",
    kind: "TrafficPolicy",
    metadata: { name, uid: name, generation: 1, resourceVersion: "1", createdAt, updatedAt: createdAt },
    spec: { policy: {} },
    status: {
      observedGeneration: 1,
      state: "ACCEPTED",
      ...(order === undefined ? {} : { destinations: { d: { state: "ACCEPTED", acceptanceOrder: order } } }),
    },
  };
}

describe("acceptanceOrder", () => {
  it("puts numbered policies first by number, then the rest by creation time then name", () => {
    const policies = [
      policy("new-b", "2024-02"),
      policy("old-numbered", "2024-01", 2),
      policy("new-a", "2024-02"),
      policy("late-numbered", "2024-09", 1),
      policy("oldest", "2023-01"),
    ];
    expect(acceptanceOrder(policies, "d").map((p) => p.metadata.name)).toEqual(["late-numbered", "old-numbered", "oldest", "new-a", "new-b"]);
  });

  it("breaks ties between equal numbers by creation time then name", () => {
    const policies = [policy("b", "2024-01", 1), policy("a", "2024-01", 1), policy("c", "2023-01", 1)];
    expect(acceptanceOrder(policies, "d").map((p) => p.metadata.name)).toEqual(["c", "a", "b"]);
  });
});

describe("AcceptanceCounter", () => {
  it("keeps previous numbers and gives newly accepted policies the next ones", () => {
    const kept = policy("kept", "2024-01", 4);
    const fresh = policy("fresh", "2024-02");
    const rejected = policy("rejected", "2024-03");
    const later = policy("later", "2024-04");
    const counter = new AcceptanceCounter([kept, fresh, rejected, later], "d");
    expect(counter.take(kept, "d", true)).toBe(4);
    expect(counter.take(fresh, "d", true)).toBe(5);
    expect(counter.take(rejected, "d", false)).toBeUndefined();
    expect(counter.take(later, "d", true)).toBe(6);
  });

  it("keeps the number of a policy that is no longer accepted", () => {
    const p = policy("p", "2024-01", 3);
    expect(new AcceptanceCounter([p], "d").take(p, "d", false)).toBe(3);
  });
});
