import { describe, expect, it } from "vitest";
import { type StructuralSchema, metadataProblems, unknownFields } from "./structural";

const schema: StructuralSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        hosts: { type: "array", items: { type: "string" } },
        routes: { type: "array", items: { type: "object", properties: { weight: { type: "integer" } } } },
        headers: { type: "object", additionalProperties: { type: "string" } },
        subsets: { type: "object", additionalProperties: { type: "object", properties: { version: { type: "string" } } } },
        config: { type: "object", properties: { known: { type: "string" } }, "x-kubernetes-preserve-unknown-fields": true },
        loose: { type: "object" },
      },
    },
  },
};

describe("unknownFields", () => {
  it.each<[string, unknown, string[]]>([
    ["a fully known object", { apiVersion: "x/v1", kind: "X", metadata: { anything: 1 }, spec: { hosts: ["a"], routes: [{ weight: 1 }] } }, []],
    ["an unknown root field", { spec: {}, specs: {} }, ["specs: unknown field"]],
    ["an unknown nested field", { spec: { hostz: ["a"] } }, ["spec.hostz: unknown field"]],
    ["an unknown field in an array item", { spec: { routes: [{ weight: 1 }, { wieght: 2 }] } }, ["spec.routes[1].wieght: unknown field"]],
    ["map keys", { spec: { headers: { "x-user": "a", anything: "b" } } }, []],
    ["an unknown field inside a map value", { spec: { subsets: { v1: { version: "v1", verison: "v1" } } } }, ["spec.subsets.v1.verison: unknown field"]],
    ["fields the schema preserves", { spec: { config: { known: "a", extra: { deep: 1 } } } }, []],
    ["an object without declared properties", { spec: { loose: { whatever: true } } }, []],
  ])("%s", (_what, object, expected) => {
    expect(unknownFields(schema, object)).toEqual(expected);
  });
});

describe("metadataProblems", () => {
  it.each<[string, unknown, string[]]>([
    ["a valid name and namespace", { name: "reviews.v1", namespace: "bookinfo" }, []],
    ["no metadata", undefined, ["metadata: required field is missing"]],
    ["no name or namespace", {}, ["metadata.name: required field is missing", "metadata.namespace: required field is missing"]],
    ["a name with capitals", { name: "Reviews", namespace: "bookinfo" }, ['metadata.name: "Reviews" is not a DNS-1123 subdomain']],
    ["a namespace with a dot", { name: "reviews", namespace: "book.info" }, ['metadata.namespace: "book.info" is not a DNS-1123 label']],
  ])("%s", (_what, metadata, expected) => {
    expect(metadataProblems({ metadata })).toEqual(expected);
  });
});
