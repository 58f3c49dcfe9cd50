import { API_VERSION, USER_KINDS, USER_KIND_NAMES, type UserKind, inputMetadata, regex } from "@meshplane/core";
import { stringify } from "yaml";
import { z } from "zod";

// The custom resources of docs/gitops.md#the-custom-resources: generated from core's document
// schemas, never written by hand, as structural schemas the API server accepts. What a CRD cannot
// say stays meshplane's to check (the agent submits, the control plane refuses, the status says why).

type Schema = Record<string, unknown>;

const [GROUP, VERSION] = API_VERSION.split("/") as [string, string];
const SHORT_NAMES: Record<UserKind, string> = { VirtualMesh: "mpvm", TrafficPolicy: "mptp", AccessPolicy: "mpap" };
const READY = '.status.conditions[?(@.type=="Ready")]';

/** Keywords copied as they are: each means the same in a CRD's OpenAPI v3 schema. */
const KEPT = ["type", "description", "enum", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "required"] as const;
/**
 * Keywords a CRD schema cannot carry, left to meshplane's own validation: key patterns of maps, rules
 * between fields (`if`/`then`), "at least one item such that" (`contains`), and negations.
 */
const MESHPLANE_ONLY = new Set(["propertyNames", "if", "then", "else", "contains", "not", "$schema", "$id", "id"]);

const quote = (fields: string[]) => (fields.length === 2 ? fields.join(" or ") : `${fields.slice(0, -1).join(", ")} or ${fields.at(-1)}`);
const has = (field: string) => `has(self.${field})`;

/** `[{required: [a]}, {required: [b]}, …]` as the field names, or undefined when a branch says more. */
function requiredOnly(branches: unknown): string[] | undefined {
  if (!Array.isArray(branches)) return undefined;
  const fields = branches.map((b: Schema) => (Object.keys(b).length === 1 && Array.isArray(b.required) && b.required.length === 1 ? b.required[0] : undefined));
  return fields.every((f): f is string => typeof f === "string") ? fields : undefined;
}

/** The CEL rules of an object node: "exactly one of", "at least one of", "this needs that", "never set". */
function celRules(node: Schema, path: string, never: string[]): { rule: string; message: string }[] {
  const rules: { rule: string; message: string }[] = [];
  if (node.oneOf !== undefined) {
    const fields = requiredOnly(node.oneOf);
    if (!fields) throw new Error(`${path}: oneOf other than "exactly one of these fields" has no CRD form`);
    const rule =
      fields.length === 2 ? `${has(fields[0] as string)} != ${has(fields[1] as string)}` : `${fields.map((f) => `(${has(f)} ? 1 : 0)`).join(" + ")} == 1`;
    rules.push({ rule, message: `set exactly one of ${quote(fields)}` });
  }
  if (node.anyOf !== undefined) {
    const fields = requiredOnly(node.anyOf);
    if (!fields) throw new Error(`${path}: anyOf other than "at least one of these fields" has no CRD form`);
    rules.push({ rule: fields.map(has).join(" || "), message: `set at least one of ${quote(fields)}` });
  }
  for (const [field, needs] of Object.entries((node.dependentRequired ?? {}) as Record<string, string[]>))
    rules.push({ rule: `!${has(field)} || (${needs.map(has).join(" && ")})`, message: `${field} needs ${needs.join(" and ")}` });
  for (const field of never)
    rules.push({
      rule: `!${has(field)}`,
      message: `${field}: ${((node.properties as Record<string, Schema>)[field]?.description as string) ?? "must not be set"}`,
    });
  return rules;
}

/** A JSON Schema node that matches nothing (`not: {}`): its field may never be set. */
const isNever = (node: Schema) => typeof node.not === "object" && node.not !== null && Object.keys(node.not).length === 0;

/**
 * One node of a JSON Schema (zod's draft 2020-12) as a structural OpenAPI v3 schema node: every node
 * typed (an empty schema keeps unknown fields), `$ref`s inlined, `const` as a one-value enum,
 * numeric exclusive bounds as the boolean form, maps as `additionalProperties` alone, a pattern kept
 * only when RE2 (Go's regexp, which the API server compiles it with) takes it, and the field rules
 * as CEL. Throws, naming the path, on a keyword it has no rule for: a schema change must be decided.
 */
function structural(node: Schema, root: Schema, path: string): Schema {
  if (typeof node.$ref === "string") {
    const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
    const target = name === undefined ? undefined : (root.$defs as Record<string, Schema> | undefined)?.[name];
    if (!target || path.split(".").length > 64) throw new Error(`${path}: $ref ${node.$ref} cannot be inlined`);
    const { $ref: _, ...rest } = node;
    return structural({ ...target, ...rest }, root, path);
  }
  const out: Schema = {};
  for (const key of KEPT) if (node[key] !== undefined) out[key] = node[key];
  if (node.const !== undefined) out.enum = [node.const];
  for (const [exclusive, bound] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (typeof node[exclusive] === "number") Object.assign(out, { [bound]: node[exclusive], [exclusive]: true });
  }
  if (typeof node.pattern === "string" && regex.safeParse(node.pattern).success) out.pattern = node.pattern;
  const unknown = Object.keys(node).filter(
    (k) =>
      !(KEPT as readonly string[]).includes(k) &&
      !MESHPLANE_ONLY.has(k) &&
      ![
        "const",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "pattern",
        "properties",
        "items",
        "additionalProperties",
        "oneOf",
        "anyOf",
        "dependentRequired",
        "$defs",
      ].includes(k),
  );
  if (unknown.length > 0) throw new Error(`${path}: no CRD form for ${unknown.join(", ")}`);
  // A union of types or a nullable field: a CRD node has one type.
  if (node.type !== undefined && typeof node.type !== "string") throw new Error(`${path}: no CRD form for the types ${JSON.stringify(node.type)}`);

  const never: string[] = [];
  if (node.properties !== undefined) {
    const properties: Record<string, Schema> = {};
    for (const [name, child] of Object.entries(node.properties as Record<string, Schema>)) {
      if (isNever(child)) never.push(name);
      // Typed, so that CEL sees the field its rule refuses; any value is refused by that rule.
      properties[name] = isNever(child)
        ? { type: "object", ...(child.description === undefined ? {} : { description: child.description }), "x-kubernetes-preserve-unknown-fields": true }
        : structural(child, root, `${path}.${name}`);
    }
    out.type ??= "object";
    out.properties = properties;
  }
  if (typeof node.additionalProperties === "object") {
    if (node.properties !== undefined) throw new Error(`${path}: a CRD object has properties or additionalProperties, not both`);
    out.type ??= "object";
    out.additionalProperties = structural(node.additionalProperties as Schema, root, `${path}.*`);
  }
  if (node.items !== undefined) {
    out.type ??= "array";
    out.items = structural(node.items as Schema, root, `${path}[]`);
  }
  const rules = celRules(node, path, never);
  if (rules.length > 0) out["x-kubernetes-validations"] = rules;
  if (out.type === undefined) {
    if (Object.keys(out).some((k) => k !== "description")) throw new Error(`${path}: an untyped schema with rules has no CRD form`);
    out["x-kubernetes-preserve-unknown-fields"] = true;
  }
  return out;
}

const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as Schema;

/**
 * A zod schema's input as a structural OpenAPI v3 schema for a CRD, named `path` in errors (see
 * `structural` for the rules). Pure; throws, naming the field, on a rule that has no CRD form.
 */
export function structuralSchema(schema: z.ZodType, path = "spec"): Schema {
  const json = jsonSchema(schema);
  return structural(json, json, path);
}

/** The schema of a whole custom resource: metadata.name as the API takes names, the spec, and a status the agent writes. */
function resourceSchema(kind: UserKind): Schema {
  return {
    type: "object",
    description: `A meshplane ${kind} authored in this cluster (docs/gitops.md): the agent submits it to the control plane and writes its status back.`,
    required: ["spec"],
    properties: {
      apiVersion: { type: "string" },
      kind: { type: "string" },
      // Only name and generateName may be constrained under metadata.
      metadata: { type: "object", properties: { name: structuralSchema(inputMetadata.shape.name, "metadata.name") } },
      spec: structuralSchema(USER_KINDS[kind].spec),
      // What the agent writes (docs/gitops.md#status-in-the-cluster); its shape is core's, not the API server's to check.
      // A new resource starts at observedGeneration 0, so kstatus reads it as in progress until the agent has written
      // (docs/gitops.md#flux): without a status at all kstatus would call it Current.
      status: { type: "object", default: { observedGeneration: 0 }, "x-kubernetes-preserve-unknown-fields": true },
    },
  };
}

/**
 * The CustomResourceDefinition of `kind` (apiextensions.k8s.io/v1): group and version of the API's
 * documents, namespaced, a status subresource, Ready and Reason columns from the kstatus Ready
 * condition. Pure; throws when core's schema holds a rule with no CRD form.
 */
export function customResourceDefinition(kind: UserKind): Schema {
  const plural = USER_KINDS[kind].plural;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${GROUP}`,
      labels: { "app.kubernetes.io/part-of": "meshplane" },
      // Uninstalling the chart or turning authoring off must not delete every custom resource with it.
      annotations: { "helm.sh/resource-policy": "keep" },
    },
    spec: {
      group: GROUP,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames: [SHORT_NAMES[kind]], categories: ["meshplane"] },
      scope: "Namespaced",
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: "Ready", type: "string", jsonPath: `${READY}.status` },
            { name: "Reason", type: "string", jsonPath: `${READY}.reason` },
            { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
          ],
          schema: { openAPIV3Schema: resourceSchema(kind) },
        },
      ],
    },
  };
}

/** The chart's CRD files, `<plural>.yaml` → text, byte-stable (what `npm run gen:crds` writes). */
export function customResourceDefinitionFiles(): Record<string, string> {
  const header = "# Generated from core's document schemas by `npm run gen:crds` (scripts/gen-crds.ts): do not edit.\n";
  return Object.fromEntries(
    USER_KIND_NAMES.map((kind) => [`${USER_KINDS[kind].plural}.yaml`, header + stringify(customResourceDefinition(kind), { lineWidth: 0 })]),
  );
}
