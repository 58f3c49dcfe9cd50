import { describe, expect, it } from "vitest";
import { printer } from "./describe-parts";
import { printSource, sourceBlock, sourceOf } from "./describe-source";

const source = { cluster: "east", namespace: "shop", name: "cart-retries", uid: "0b6f-4c1e", generation: 4 };

/** What printSource writes, without colour. */
function printed(metadata: Record<string, unknown> | undefined): string {
  let out = "";
  const p = printer({ out: { write: (s: string) => (out += s) }, err: { write: () => true }, env: {} } as never);
  printSource(p, "TrafficPolicy", metadata);
  return out;
}

describe("describe's Source block", () => {
  it("reads metadata.source at the boundary: none for a resource created through the API or a malformed one", () => {
    expect(sourceOf({ name: "cart-retries.shop.east", source })).toEqual(source);
    expect(sourceOf({ name: "reviews-timeout" })).toBeUndefined();
    expect(sourceOf({ source: { cluster: "east" } })).toBeUndefined();
    expect(sourceOf(undefined)).toBeUndefined();
  });

  it("names the custom resource, its uid and generation beside the stored one, and where to change it", () => {
    expect(sourceBlock("TrafficPolicy", source, 2)).toEqual({
      title: "authored in cluster east",
      fields: [
        ["Cluster", "east"],
        ["Namespace", "shop"],
        ["Name", "cart-retries"],
        ["UID", "0b6f-4c1e"],
        ["Generation", "4 in the cluster; stored as generation 2"],
      ],
      note: "Authored in cluster east: change it in Git, or with kubectl in that cluster (TrafficPolicy shop/cart-retries). It is read-only here. A tenant admin may delete it (for a cluster gone for good); its agent submits it again while the custom resource exists.",
    });
  });

  it("prints it under the resource's fields, aligned with them", () => {
    expect(printed({ name: "cart-retries.shop.east", generation: 2, source })).toBe(
      [
        "Source:         authored in cluster east",
        "  Cluster:      east",
        "  Namespace:    shop",
        "  Name:         cart-retries",
        "  UID:          0b6f-4c1e",
        "  Generation:   4 in the cluster; stored as generation 2",
        "  Authored in cluster east: change it in Git, or with kubectl in that cluster (TrafficPolicy shop/cart-retries). It is read-only here. A tenant admin may delete it (for a cluster gone for good); its agent submits it again while the custom resource exists.",
        "",
      ].join("\n"),
    );
    expect(printed({ name: "reviews-timeout", generation: 1 })).toBe("");
  });
});
