import { describe, expect, it } from "vitest";
import { allRoutes } from "./app";
import { openApiDocument } from "./openapi";

type Operation = {
  parameters: { name: string; in: string; schema: { pattern?: string } }[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
};

// The routes' handlers are never called here: only their declarations are read.
const doc = openApiDocument(allRoutes({} as never), "test") as { paths: Record<string, Record<string, Operation>> };
const op = (path: string, method: string) => doc.paths[path]?.[method] as Operation;

describe("the OpenAPI document says what the server checks", () => {
  it("documents 431 on every operation (Node answers oversized headers itself)", () => {
    for (const methods of Object.values(doc.paths)) for (const o of Object.values(methods)) expect(o.responses).toHaveProperty("431");
  });

  it("gives If-Match the syntax the server parses, and 400 where it is read", () => {
    for (const method of ["put", "delete"]) {
      const o = op("/v1/trafficpolicies/{name}", method);
      const pattern = o.parameters.find((p) => p.name === "If-Match")?.schema.pattern as string;
      expect(new RegExp(pattern).test('W/"12"')).toBe(true);
      expect(new RegExp(pattern).test('"1 2"')).toBe(false);
      expect(o.responses).toHaveProperty("400");
    }
  });

  it("says expiresAt and ttlDays exclude each other", () => {
    const schema = op("/v1/tokens", "post").requestBody?.content["application/json"]?.schema;
    expect(schema?.not).toEqual({ required: ["expiresAt", "ttlDays"] });
  });

  it("documents 401 for an unusable bootstrap token on register", () => {
    expect(op("/v1/agent/register", "post").responses).toHaveProperty("401");
  });

  it("describes plan's routing: an output API per mesh name, and documents or routing (docs/api.md#plan-a-change)", () => {
    const content = op("/v1/plan", "post").requestBody?.content ?? {};
    const json = content["application/json"]?.schema as {
      required?: string[];
      anyOf: unknown[];
      properties: { routing: { additionalProperties: { enum: string[] }; maxProperties: number } };
    };
    expect(json.required ?? []).toEqual([]);
    expect(json.anyOf).toEqual([{ required: ["documents"] }, { required: ["routing"], properties: { routing: { minProperties: 1 } } }]);
    expect(json.properties.routing.additionalProperties.enum).toEqual(["ISTIO", "GATEWAY_API"]);
    expect(json.properties.routing.maxProperties).toBe(64);
    expect(content["application/yaml"]?.schema.oneOf).toHaveLength(3);
    const answer = (op("/v1/plan", "post").responses["200"] as { content: Record<string, { schema: { properties: Record<string, unknown> } }> }).content[
      "application/json"
    ]?.schema.properties;
    expect(Object.keys(answer ?? {})).toEqual(["clusters", "statuses", "previousStatuses", "routing"]);
  });

  it("describes a YAML body of apply as a stream of user documents", () => {
    const content = op("/v1/apply", "post").requestBody?.content ?? {};
    expect(content["application/yaml"]?.schema.oneOf).toHaveLength(3);
    expect(content["application/json"]?.schema.required).toEqual(["documents"]);
  });
});
