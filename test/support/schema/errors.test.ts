import { describe, expect, it } from "vitest";
import { type AjvIssue, describeAjvErrors, readablePath } from "./errors";

describe("readablePath", () => {
  it.each<[string, string | undefined, string]>([
    ["", undefined, "(root)"],
    ["", "spec", "spec"],
    ["/spec/http/0/timeout", undefined, "spec.http[0].timeout"],
    ["/metadata/labels/app.kubernetes.io~1name", undefined, 'metadata.labels["app.kubernetes.io/name"]'],
    ["/spec/a~0b", "missing", 'spec["a~b"].missing'],
  ])("%j + %j → %s", (pointer, extra, path) => {
    expect(readablePath(pointer, extra)).toBe(path);
  });
});

function issue(partial: Partial<AjvIssue> & Pick<AjvIssue, "keyword">): AjvIssue {
  return { instancePath: "/spec", schemaPath: "#/properties/spec", params: {}, ...partial };
}

describe("describeAjvErrors", () => {
  it.each<[string, AjvIssue, string]>([
    ["required", issue({ keyword: "required", params: { missingProperty: "hosts" } }), "spec.hosts: required field is missing"],
    ["additionalProperties", issue({ keyword: "additionalProperties", params: { additionalProperty: "hostz" } }), "spec.hostz: unknown field"],
    ["enum", issue({ keyword: "enum", params: { allowedValues: ["ALLOW", "DENY"] }, data: "NOPE" }), 'spec: must be one of "ALLOW", "DENY", got "NOPE"'],
    ["type", issue({ keyword: "type", params: { type: "string" }, data: 5 }), "spec: must be string, got 5"],
    ["type without data", issue({ keyword: "type", params: { type: "string" } }), "spec: must be string"],
    ["other keywords", issue({ keyword: "minimum", message: "must be >= 0" }), "spec: must be >= 0"],
    [
      "a set-one-of oneOf",
      issue({ keyword: "oneOf", params: { passingSchemas: [1, 2] }, schema: [{ not: {} }, { required: ["exact"] }, { required: ["prefix"] }] }),
      "spec: set only one of exact, prefix",
    ],
    [
      "another oneOf",
      issue({ keyword: "oneOf", params: { passingSchemas: null }, schema: [{ type: "string" }] }),
      "spec: must match exactly one of the allowed forms",
    ],
  ])("%s", (_what, input, line) => {
    expect(describeAjvErrors([input])).toEqual([line]);
  });

  it("drops the errors of a failed oneOf's branches and repeated lines", () => {
    const oneOf = issue({
      keyword: "oneOf",
      schemaPath: "#/properties/spec/oneOf",
      params: { passingSchemas: [1, 2] },
      schema: [{}, { required: ["a"] }, { required: ["b"] }],
    });
    const branch = issue({ keyword: "not", schemaPath: "#/properties/spec/oneOf/0/not", message: "must NOT be valid" });
    const type = issue({ keyword: "type", schemaPath: "#/properties/spec/properties/x/type", instancePath: "/spec/x", params: { type: "integer" } });
    expect(describeAjvErrors([branch, oneOf, type, type])).toEqual(["spec: set only one of a, b", "spec.x: must be integer"]);
  });
});
