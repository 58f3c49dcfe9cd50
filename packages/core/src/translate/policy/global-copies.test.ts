import { describe, expect, it } from "vitest";
import type { Destination } from "../../api/index";
import type { GlobalService } from "../virtual-mesh/ambient-federation";
import type { VirtualMesh } from "../virtual-mesh/membership";
import { driftKey, driftOf, invalidElsewhere, selectionDrift } from "./global-copies";

function copy(cluster: string): Destination {
  return {
    kind: "Destination",
    metadata: { name: `reviews-${cluster}`, cluster },
    spec: { cluster, mesh: `istiod-${cluster}`, namespace: "bookinfo", name: "reviews", selector: { app: "reviews" }, ports: [], workloads: [] },
  } as unknown as Destination;
}

const service: GlobalService = {
  virtualMesh: { metadata: { name: "vm" } } as VirtualMesh,
  namespace: "bookinfo",
  name: "reviews",
  destinations: [copy("c1"), copy("c2"), copy("c3")],
};
const copies = new Map(service.destinations.map((d) => [d.metadata.name, service]));
const policy = (name: string) => ({ metadata: { name } });

describe("selectionDrift", () => {
  it("keeps a policy off the copies it selects when it misses others, naming them", () => {
    const selecting = new Map([
      ["reviews-c1", [policy("everywhere"), policy("some")]],
      ["reviews-c2", [policy("everywhere"), policy("some")]],
      ["reviews-c3", [policy("everywhere")]],
    ]);
    const drift = selectionDrift(
      copies,
      (d) => selecting.get(d),
      () => true,
    );
    expect([...drift.keys()].sort()).toEqual(["reviews-c1", "reviews-c2"]);
    const [error] = driftOf(drift, "reviews-c1").get("some") ?? [];
    expect(error).toMatch(
      /^global service bookinfo\/reviews of VirtualMesh vm also runs in mesh istiod-c3 \(cluster c3\), where this policy does not select it;/,
    );
    expect(driftOf(drift, "reviews-c3").size).toBe(0);
  });

  it("leaves policies with policy-wide errors alone", () => {
    const drift = selectionDrift(
      copies,
      (d) => (d === "reviews-c1" ? [policy("broken")] : []),
      () => false,
    );
    expect(drift.size).toBe(0);
  });
});

const all = new Map(service.destinations.map((d) => [d.metadata.name, [policy("p")]]));

describe("invalidElsewhere", () => {
  it("keeps a policy INVALID on one copy off the others, naming that copy", () => {
    const drift = invalidElsewhere(copies, new Map(), all, (d) => d === "reviews-c2");
    expect(driftOf(drift, "reviews-c2").size).toBe(0);
    for (const d of ["reviews-c1", "reviews-c3"])
      expect(driftOf(drift, d).get("p")?.[0]).toMatch(/^this policy is INVALID on reviews-c2 \(mesh istiod-c2, cluster c2\)/);
  });

  it("adds nothing when the policy is INVALID everywhere or nowhere, and keeps the first drift", () => {
    expect(invalidElsewhere(copies, new Map(), all, () => true).size).toBe(0);
    expect(invalidElsewhere(copies, new Map(), all, () => false).size).toBe(0);
    const first = new Map([["reviews-c1", new Map([["q", ["missed"]]])]]);
    const drift = invalidElsewhere(copies, first, all, () => false);
    expect(driftKey(driftOf(drift, "reviews-c1"))).toBe(driftKey(first.get("reviews-c1") as Map<string, string[]>));
  });
});
