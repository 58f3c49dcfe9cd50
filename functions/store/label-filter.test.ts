import { parseLabelSelector } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { labelFilter } from "./label-filter";

// What DynamoDB makes of these expressions is tested against DynamoDB Local
// (test/integration/pagination.test.ts); here, what is left out of them and why.
describe("labelFilter", () => {
  it("is undefined for no selector", () => {
    expect(labelFilter([])).toBeUndefined();
  });

  it("lets items without the labels map through, and writes a single term without parentheses (DynamoDB refuses redundant ones)", () => {
    expect(labelFilter(parseLabelSelector("team!=a"))).toEqual({
      expression: "attribute_not_exists(#labels) OR (attribute_not_exists(#labels.#l0) OR #labels.#l0 <> :l0)",
      names: { "#labels": "labels", "#l0": "team" },
      values: { ":l0": "a" },
    });
  });

  it("names a key once however often it is used, and a key with dots and slashes only by placeholder", () => {
    const filter = labelFilter(parseLabelSelector("app.kubernetes.io/name=web,app.kubernetes.io/name!=db"));
    expect(filter?.names).toEqual({ "#labels": "labels", "#l0": "app.kubernetes.io/name" });
    expect(filter?.expression).toBe("attribute_not_exists(#labels) OR (#labels.#l0 = :l0 AND (attribute_not_exists(#labels.#l0) OR #labels.#l0 <> :l1))");
  });

  it("leaves out an IN of more than 100 values (DynamoDB's limit), keeping no placeholder of it", () => {
    const values = Array.from({ length: 101 }, (_, i) => `v${i}`).join(",");
    expect(labelFilter(parseLabelSelector(`team in (${values}),tier`))).toEqual({
      expression: "attribute_not_exists(#labels) OR attribute_exists(#labels.#l0)",
      names: { "#labels": "labels", "#l0": "tier" },
      values: {},
    });
    expect(labelFilter(parseLabelSelector(`team notin (${values})`))).toBeUndefined();
  });

  it("is undefined for a selector longer than an expression may be (4 KB): the selector is then judged in memory only", () => {
    const selector = Array.from({ length: 200 }, (_, i) => `key-${i}`).join(",");
    expect(labelFilter(parseLabelSelector(selector))).toBeUndefined();
  });
});
