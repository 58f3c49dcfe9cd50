import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { LABEL_KEY, USER_KINDS, USER_KIND_NAMES, type UserKind, stringMatch } from "@meshplane/core";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { customResourceDefinition, customResourceDefinitionFiles, structuralSchema } from "./crds";

type Schema = Record<string, unknown>;
const CRD_DIR = join(import.meta.dirname, "../../chart/files/crds");

const schemaOf = (kind: UserKind) =>
  (customResourceDefinition(kind) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } }).spec.versions[0]?.schema.openAPIV3Schema as Schema;

/** Every node of a schema with its path: properties, map values and items. */
function nodes(schema: Schema, path = ""): [string, Schema][] {
  const children: [string, Schema][] = [
    ...Object.entries((schema.properties ?? {}) as Record<string, Schema>).map(([k, v]): [string, Schema] => [`${path}.${k}`, v]),
    ...(typeof schema.additionalProperties === "object" ? [[`${path}.*`, schema.additionalProperties as Schema] as [string, Schema]] : []),
    ...(schema.items ? [[`${path}[]`, schema.items as Schema] as [string, Schema]] : []),
  ];
  return [[path, schema], ...children.flatMap(([p, n]) => nodes(n, p))];
}

/** What a structural schema may not hold: references, JSON Schema's newer keywords, and junctors that would set types or fields (CEL says those). */
const FORBIDDEN = [
  "$ref",
  "$defs",
  "$schema",
  "const",
  "oneOf",
  "anyOf",
  "allOf",
  "not",
  "if",
  "then",
  "contains",
  "propertyNames",
  "dependentRequired",
  "patternProperties",
];

describe.each(USER_KIND_NAMES)("the %s CustomResourceDefinition", (kind) => {
  const all = nodes(schemaOf(kind));

  it("is structural: every node typed, no junctors or references, maps as additionalProperties alone", () => {
    for (const [path, node] of all) {
      expect(node.type !== undefined || node["x-kubernetes-preserve-unknown-fields"] === true, `${path} typed`).toBe(true);
      expect(
        FORBIDDEN.filter((k) => k in node),
        path,
      ).toEqual([]);
      expect(node.additionalProperties === undefined || typeof node.additionalProperties === "object", `${path} additionalProperties`).toBe(true);
      expect(node.properties !== undefined && node.additionalProperties !== undefined, `${path} both`).toBe(false);
      for (const bound of ["exclusiveMinimum", "exclusiveMaximum"]) expect([undefined, true], `${path} ${bound}`).toContain(node[bound]);
    }
  });

  it("carries only patterns Go's RE2 compiles", () => {
    const patterns = all.flatMap(([path, node]) => (typeof node.pattern === "string" ? [[path, node.pattern] as const] : []));
    expect(patterns.length).toBeGreaterThan(0);
    for (const [path, pattern] of patterns) expect(() => RE2JS.compile(pattern), path).not.toThrow();
  });

  it("names the resource as the API does, and leaves status to the agent", () => {
    const crd = customResourceDefinition(kind) as { metadata: { name: string }; spec: Record<string, unknown> };
    expect(crd.metadata.name).toBe(`${USER_KINDS[kind].plural}.meshplane.dev`);
    expect(crd.spec).toMatchObject({
      group: "meshplane.dev",
      scope: "Namespaced",
      names: { kind, plural: USER_KINDS[kind].plural, categories: ["meshplane"] },
    });
    expect(crd.spec.versions).toMatchObject([{ name: "v1", served: true, storage: true, subresources: { status: {} } }]);
    const schema = schemaOf(kind) as { properties: Record<string, Schema>; required: string[] };
    expect(schema.required).toEqual(["spec"]);
    expect(schema.properties.metadata).toEqual({
      type: "object",
      properties: { name: { type: "string", maxLength: 63, pattern: "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" } },
    });
    // observedGeneration 0 until the agent writes: kstatus reads a new resource as in progress (docs/gitops.md#flux).
    expect(schema.properties.status).toEqual({ type: "object", default: { observedGeneration: 0 }, "x-kubernetes-preserve-unknown-fields": true });
  });
});

describe("the CustomResourceDefinitions", () => {
  it("have short names of their own and the Ready condition's status and reason as columns", () => {
    const specs = USER_KIND_NAMES.map(
      (k) => (customResourceDefinition(k) as { spec: { names: { shortNames: string[] }; versions: { additionalPrinterColumns: unknown[] }[] } }).spec,
    );
    expect(specs.map((s) => s.names.shortNames)).toEqual([["mpvm"], ["mptp"], ["mpap"]]);
    for (const s of specs)
      expect(s.versions[0]?.additionalPrinterColumns).toEqual([
        { name: "Ready", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
        { name: "Reason", type: "string", jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
        { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
      ]);
  });

  it("say core's 'exactly one of' rules as CEL, and a field never to set as a rule refusing it", () => {
    const tp = schemaOf("TrafficPolicy") as { properties: { spec: Schema } };
    const rules = Object.fromEntries(
      nodes(tp.properties.spec, "spec").flatMap(([p, n]) => (n["x-kubernetes-validations"] ? [[p, n["x-kubernetes-validations"]]] : [])),
    );
    expect(rules["spec.destinationSelector[]"]).toEqual([
      { rule: "has(self.kubeServiceMatcher) != has(self.kubeServiceRefs)", message: "set exactly one of kubeServiceMatcher or kubeServiceRefs" },
    ]);
    expect(rules["spec.httpRequestMatchers[].uri"]).toEqual([
      { rule: "(has(self.exact) ? 1 : 0) + (has(self.prefix) ? 1 : 0) + (has(self.regex) ? 1 : 0) == 1", message: "set exactly one of exact, prefix or regex" },
    ]);
    const vm = nodes((schemaOf("VirtualMesh") as { properties: { spec: Schema } }).properties.spec, "spec");
    const mtls = vm.find(([p]) => p === "spec.mtlsConfig")?.[1] as Schema;
    expect(mtls["x-kubernetes-validations"]).toEqual([{ rule: "!has(self.limited)", message: "limited: not supported yet" }]);
    const routing = vm.find(([p]) => p === "spec.routing")?.[1] as Schema;
    expect(routing["x-kubernetes-validations"]).toEqual([
      { rule: "has(self.api) || has(self.waypoints)", message: "set at least one of api or waypoints" },
      { rule: "!has(self.waypointMeshes) || (has(self.waypoints))", message: "waypointMeshes needs waypoints" },
    ]);
  });

  it("keep core's descriptions", () => {
    const uri = nodes(schemaOf("TrafficPolicy")).find(([p]) => p === ".spec.httpRequestMatchers[].uri.regex")?.[1];
    expect(uri).toMatchObject({ type: "string", minLength: 1, description: "an RE2 regular expression (as Envoy runs it)" });
  });
});

describe("structuralSchema", () => {
  it.each([
    ["a literal as a one-value enum", z.literal("x"), { type: "string", enum: ["x"] }],
    ["an exclusive bound in its boolean form", z.number().positive(), { type: "number", minimum: 0, exclusiveMinimum: true }],
    [
      "a strict object without additionalProperties: false",
      z.strictObject({ a: z.string() }),
      { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
    ],
    ["a record as a map", z.record(z.string(), z.number()), { type: "object", additionalProperties: { type: "number" } }],
    [
      "unknown as any value kept",
      z.strictObject({ u: z.unknown().optional() }),
      { type: "object", properties: { u: { "x-kubernetes-preserve-unknown-fields": true } } },
    ],
    ["a list's bound", z.array(z.string()).max(5), { type: "array", maxItems: 5, items: { type: "string" } }],
    ["a label key: RE2 has no lookahead, so the key pattern is left to meshplane", z.string().regex(LABEL_KEY).max(317), { type: "string", maxLength: 317 }],
  ])("turns %s", (_what, schema, expected) => {
    expect(structuralSchema(schema)).toEqual(expected);
  });

  it("inlines a reference", () => {
    const ref = z.string().max(3).meta({ id: "short" });
    expect(structuralSchema(z.strictObject({ a: ref, b: ref }))).toEqual({
      type: "object",
      properties: { a: { type: "string", maxLength: 3 }, b: { type: "string", maxLength: 3 } },
      required: ["a", "b"],
    });
  });

  it("turns core's exactly-one-of into CEL", () => {
    expect(structuralSchema(stringMatch)["x-kubernetes-validations"]).toEqual([
      { rule: "(has(self.exact) ? 1 : 0) + (has(self.prefix) ? 1 : 0) + (has(self.regex) ? 1 : 0) == 1", message: "set exactly one of exact, prefix or regex" },
    ]);
  });

  it.each([
    ["a union of types", z.union([z.string(), z.number()]), /spec: no CRD form for the types \["string","number"\]/],
    ["a nullable field", z.strictObject({ a: z.string().nullable() }), /spec\.a: no CRD form for the types/],
    ["a union of objects", z.union([z.strictObject({ a: z.string() }), z.strictObject({ b: z.string() })]), /spec: anyOf other than/],
    ["a tuple", z.tuple([z.string()]), /spec: no CRD form for prefixItems/],
  ])("refuses %s, naming the field: a schema change must be decided, not dropped", (_what, schema, message) => {
    expect(() => structuralSchema(schema)).toThrow(message);
  });
});

describe("the chart's CRD files", () => {
  it("are what `npm run gen:crds` writes from today's schemas (run it after changing a schema)", () => {
    const files = customResourceDefinitionFiles();
    expect(readdirSync(CRD_DIR).sort()).toEqual(Object.keys(files).sort());
    for (const [name, text] of Object.entries(files)) expect(readFileSync(join(CRD_DIR, name), "utf8"), `${name} is stale: npm run gen:crds`).toBe(text);
  });

  it("are byte-stable", () => {
    expect(customResourceDefinitionFiles()).toEqual(customResourceDefinitionFiles());
  });
});
