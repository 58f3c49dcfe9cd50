import { describe, expect, it } from "vitest";
import { type JsonSchema, parseErrorPath, quickCheck, schemaAt, valuesOf, yamlContext } from "./schema";

const strict = (properties: Record<string, JsonSchema>): JsonSchema => ({ type: "object", properties, additionalProperties: false });
const root = strict({
  kind: { type: "string", const: "TrafficPolicy" },
  spec: strict({
    destinationSelector: {
      type: "array",
      items: {
        anyOf: [
          strict({ kubeServiceRefs: strict({ services: { type: "array", items: strict({ name: { type: "string" }, cluster: { type: "string" } }) } }) }),
          strict({ kubeServiceMatcher: strict({ namespaces: { type: "array", items: { type: "string" } } }) }),
        ],
      },
    },
    policy: strict({ loadBalancer: strict({ simple: { type: "string", enum: ["ROUND_ROBIN", "RANDOM"] } }), requestTimeout: { type: "string" } }),
  }),
});

const at = (doc: string) => yamlContext(doc, doc.length);

describe("editor schema", () => {
  it("finds the path of the cursor from indentation, through list items", () => {
    expect(at("spec:\n  policy:\n    ").path).toEqual(["spec", "policy"]);
    expect(at("spec:\n  destinationSelector:\n  - ")).toMatchObject({ path: ["spec", "destinationSelector", 0] });
    expect(at("spec:\n  destinationSelector:\n  - kubeServiceRefs:\n      services:\n      - name: a\n        ").path).toEqual([
      "spec",
      "destinationSelector",
      0,
      "kubeServiceRefs",
      "services",
      0,
    ]);
    expect(at("spec:\n  policy:\n    loadBalancer:\n      simple: ")).toEqual({ path: ["spec", "policy", "loadBalancer"], key: "simple", afterColon: true });
  });

  it("offers keys and enum values from the API's schema, through anyOf", () => {
    expect(Object.keys(schemaAt(root, ["spec", "destinationSelector", 0])?.anyOf ?? [])).toHaveLength(2);
    expect(valuesOf(schemaAt(root, ["spec", "policy", "loadBalancer", "simple"]))).toEqual(["ROUND_ROBIN", "RANDOM"]);
    expect(schemaAt(root, ["spec", "destinationSelector", 0, "kubeServiceRefs", "services", 0, "cluster"])).toEqual({ type: "string" });
  });

  it("names unknown keys of strict objects and values outside an enum", () => {
    expect(quickCheck(root, { kind: "TrafficPolicy", spec: { policy: { timeout: "1s", loadBalancer: { simple: "FASTEST" } } } })).toEqual([
      { path: ["spec", "policy", "timeout"], message: "unknown field timeout; allowed here: loadBalancer, requestTimeout" },
      { path: ["spec", "policy", "loadBalancer", "simple"], message: "must be one of ROUND_ROBIN, RANDOM" },
    ]);
    expect(quickCheck(root, { spec: { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["a"] } }] } })).toEqual([]);
  });

  it("reads the API's error paths for one document", () => {
    expect(parseErrorPath("documents[0].spec.policy.retries.attempts")).toEqual(["spec", "policy", "retries", "attempts"]);
    expect(parseErrorPath("spec.destinationSelector[1].kubeServiceRefs")).toEqual(["spec", "destinationSelector", 1, "kubeServiceRefs"]);
  });
});
