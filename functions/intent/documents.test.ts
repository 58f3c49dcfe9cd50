import { describe, expect, it } from "vitest";
import { parseDocument } from "./documents";

describe("parseDocument: any JSON a client sends", () => {
  it.each([null, [], 5, "text", { metadata: null }, { metadata: { name: 7 } }])("refuses %j with field errors, never a throw", (raw) => {
    const parsed = parseDocument("TrafficPolicy", raw, "");
    expect("errors" in parsed && parsed.errors.length > 0).toBe(true);
  });

  it("says a dotted name is a resource authored in a cluster, and which custom resource to change", () => {
    const parsed = parseDocument(
      "TrafficPolicy",
      { apiVersion: "meshplane.dev/v1", kind: "TrafficPolicy", metadata: { name: "cart.shop.east" }, spec: {} },
      "",
    );
    expect("errors" in parsed ? parsed.errors.find((e) => e.path === "metadata.name")?.message : "").toContain(
      "change the custom resource TrafficPolicy shop/cart in cluster east",
    );
  });
});
