import { describe, expect, it } from "vitest";
import { fieldErrors } from "./validate";
import { authoredName, parseAuthoredName, resourceName, resourceSource } from "./source";

const label63 = "a".repeat(63);

describe("authored names (docs/gitops.md#names-and-sources)", () => {
  it("are <name>.<namespace>.<cluster>, and parse back", () => {
    const parts = { cluster: "east", namespace: "shop", name: "cart-retries" };
    expect(authoredName(parts)).toBe("cart-retries.shop.east");
    expect(parseAuthoredName("cart-retries.shop.east")).toEqual(parts);
    expect(parseAuthoredName(authoredName({ cluster: label63, namespace: label63, name: label63 }))).toEqual({
      cluster: label63,
      namespace: label63,
      name: label63,
    });
  });

  it.each(["cart-retries", "a.b", "a.b.c.d", "Cart.shop.east", "cart..east", ".shop.east", "cart.shop.", "cart-.shop.east", `${label63}a.shop.east`])(
    "%s is not an authored name",
    (name) => {
      expect(parseAuthoredName(name)).toBeUndefined();
    },
  );

  it("never equal an API-made name, and differ between clusters", () => {
    expect(resourceName.safeParse("cart-retries").success).toBe(true);
    expect(parseAuthoredName("cart-retries")).toBeUndefined();
    expect(authoredName({ cluster: "east", namespace: "shop", name: "x" })).not.toBe(authoredName({ cluster: "west", namespace: "shop", name: "x" }));
  });
});

describe("resourceName: a stored resource's name", () => {
  it.each(["cart", "cart-retries.shop.east", `${label63}.${label63}.${label63}`])("takes %s", (name) => {
    expect(resourceName.parse(name)).toBe(name);
  });

  it.each<[string, string]>([
    ["a.b", "must be a DNS-1123 label"],
    ["a.b.c.d", "must be a DNS-1123 label"],
    ["Cart", "must be a DNS-1123 label"],
    [`${"a".repeat(64)}.shop.east`, "each part must be at most 63 characters"],
  ])("refuses %s", (name, message) => {
    const parsed = resourceName.safeParse(name);
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(parsed.error.issues.map((i) => i.message).join("; ")).toContain(message);
  });

  it("refuses a single label of 64 characters", () => {
    expect(resourceName.safeParse("a".repeat(64)).success).toBe(false);
  });
});

describe("metadata.source", () => {
  const valid = { cluster: "east", namespace: "shop", name: "cart", uid: "6f1c2a9e-1d2b-4c3d-8e9f-0a1b2c3d4e5f", generation: 1 };

  it("takes a custom resource's cluster, namespace, name, uid and generation", () => {
    expect(resourceSource.parse(valid)).toEqual(valid);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["a cluster that is not a label", { cluster: "East" }, "cluster"],
    ["a uid that is not a Kubernetes uid", { uid: "a/b" }, "uid"],
    ["a uid too long", { uid: "a".repeat(65) }, "uid"],
    ["generation 0", { generation: 0 }, "generation"],
    ["a field of its own", { resourceVersion: "1" }, "resourceVersion"],
  ])("refuses %s, naming the field", (_what, change, field) => {
    const parsed = resourceSource.safeParse({ ...valid, ...change });
    expect(parsed.success).toBe(false);
    if (!parsed.success) expect(fieldErrors(parsed.error).map((e) => e.path)).toEqual([field]);
  });
});
