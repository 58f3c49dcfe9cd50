import { readablePath } from "./errors";

/** The parts of a Kubernetes structural (OpenAPI v3) schema that say which fields exist. */
export interface StructuralSchema {
  type?: string;
  properties?: Record<string, StructuralSchema>;
  items?: StructuralSchema;
  additionalProperties?: boolean | StructuralSchema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}

// Every object carries these at its root; the API server validates them itself, not the CRD schema.
const ROOT_FIELDS = new Set(["apiVersion", "kind", "metadata"]);
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walk(schema: StructuralSchema, value: unknown, pointer: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => walk(schema.items as StructuralSchema, item, `${pointer}/${i}`, out));
    return;
  }
  if (!isObject(value)) return;
  const properties = schema.properties ?? {};
  const extra = schema.additionalProperties;
  // Without declared properties we cannot tell "prune everything" from a preserve-unknown-fields
  // marker a schema generator dropped (the Istio models lose them), so such objects stay open.
  const closed = Object.keys(properties).length > 0 && extra === undefined && schema["x-kubernetes-preserve-unknown-fields"] !== true;
  for (const [key, child] of Object.entries(value)) {
    const path = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (pointer === "" && ROOT_FIELDS.has(key)) continue;
    const childSchema = properties[key] ?? (typeof extra === "object" ? extra : undefined);
    if (childSchema) walk(childSchema, child, path, out);
    else if (closed) out.push(`${readablePath(path)}: unknown field`);
  }
}

/**
 * Fields of `object` its structural schema does not declare, as the API server's strict field
 * validation (`kubectl apply`'s default, `fieldValidation=Strict`) reports them; without it they
 * would be pruned silently, which for generated config means a policy that quietly does nothing.
 * `additionalProperties` (maps) and `x-kubernetes-preserve-unknown-fields` open an object up.
 */
export function unknownFields(schema: StructuralSchema, object: unknown): string[] {
  const out: string[] = [];
  walk(schema, object, "", out);
  return out;
}

/**
 * The metadata every namespaced object needs before the API server looks at its spec: a name that
 * is a DNS-1123 subdomain and a namespace that is a DNS-1123 label. (Generated objects always name
 * their namespace; relying on the client's default namespace would apply them in the wrong place.)
 */
export function metadataProblems(object: { metadata?: unknown }): string[] {
  const metadata = object.metadata;
  if (!isObject(metadata)) return ["metadata: required field is missing"];
  const problems: string[] = [];
  const { name, namespace } = metadata;
  if (typeof name !== "string" || name === "") problems.push("metadata.name: required field is missing");
  else if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) problems.push(`metadata.name: ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  if (typeof namespace !== "string" || namespace === "") problems.push("metadata.namespace: required field is missing");
  else if (namespace.length > 63 || !DNS_LABEL.test(namespace)) problems.push(`metadata.namespace: ${JSON.stringify(namespace)} is not a DNS-1123 label`);
  return problems;
}
