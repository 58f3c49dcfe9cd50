/**
 * The editor's knowledge of a resource's shape, taken from the API's own OpenAPI document (the JSON
 * Schema of each create body): which keys may follow at a place in a YAML document, which values an
 * enum allows, and which keys a strict object refuses. Pure, so it is unit-tested without a browser.
 */
export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  description?: string;
  required?: string[];
}

/** The alternatives of a schema flattened (anyOf/oneOf/allOf), so their properties can be offered together. */
function branches(schema: JsonSchema): JsonSchema[] {
  const nested = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return [schema, ...nested.flatMap(branches)];
}

export function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  if (!schema) return {};
  return Object.assign({}, ...branches(schema).map((b) => b.properties ?? {}));
}

/** The schema at `path` (object keys, and numbers for list items), or undefined when the schema does not know it. */
export function schemaAt(root: JsonSchema, path: readonly (string | number)[]): JsonSchema | undefined {
  let here: JsonSchema | undefined = root;
  for (const step of path) {
    if (!here) return undefined;
    if (typeof step === "number") here = branches(here).find((b) => b.items)?.items;
    else {
      const props = propertiesOf(here);
      if (Object.hasOwn(props, step)) here = props[step];
      else {
        const extra = branches(here).find((b) => typeof b.additionalProperties === "object")?.additionalProperties;
        here = typeof extra === "object" ? extra : undefined;
      }
    }
  }
  return here;
}

/** Values an enum (or const) allows at this schema, as strings. */
export function valuesOf(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const out = branches(schema).flatMap((b) => [...(b.enum ?? []), ...(b.const !== undefined ? [b.const] : [])]);
  if (branches(schema).some((b) => b.type === "boolean")) out.push(true, false);
  return [...new Set(out.map(String))];
}

/** Whether the object at this schema refuses keys it does not list (zod's strict objects). */
export function isStrict(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const objects = branches(schema).filter((b) => b.properties);
  return objects.length > 0 && objects.every((b) => b.additionalProperties === false);
}

export interface Problem {
  path: (string | number)[];
  message: string;
}

/**
 * What the schema can say at once about a parsed document: keys a strict object does not know and
 * values outside an enum. The control plane's validation (on Preview) is the full check.
 */
export function quickCheck(root: JsonSchema, value: unknown, path: (string | number)[] = []): Problem[] {
  const schema = schemaAt(root, path);
  if (!schema) return [];
  const problems: Problem[] = [];
  if (Array.isArray(value)) value.forEach((v, i) => problems.push(...quickCheck(root, v, [...path, i])));
  else if (value !== null && typeof value === "object") {
    const known = propertiesOf(schema);
    for (const [k, v] of Object.entries(value)) {
      if (!Object.hasOwn(known, k) && isStrict(schema))
        problems.push({ path: [...path, k], message: `unknown field ${k}; allowed here: ${Object.keys(known).join(", ")}` });
      else problems.push(...quickCheck(root, v, [...path, k]));
    }
  } else {
    const allowed = valuesOf(schema).filter((v) => v !== "true" && v !== "false");
    if (allowed.length > 0 && typeof value === "string" && !allowed.includes(value)) problems.push({ path, message: `must be one of ${allowed.join(", ")}` });
  }
  return problems;
}

/** `documents[0].spec.policy.retries.attempts` → ["spec", "policy", "retries", "attempts"] (the API's error paths, for one document). */
export function parseErrorPath(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  for (const m of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) steps.push(m[2] !== undefined ? Number(m[2]) : (m[1] as string));
  if (steps[0] === "documents" && typeof steps[1] === "number") return steps.slice(2);
  if (steps[0] === "body") return steps.slice(1);
  return steps;
}

interface Line {
  /** Spaces before the content (or before "- "). */
  lead: number;
  dash: boolean;
  /** Column where the key starts. */
  col: number;
  /** The key, when the line is `key:`; `opens` when nothing follows the colon (a nested block). */
  key?: string;
  opens: boolean;
}

function lineOf(text: string): Line | undefined {
  if (!text.trim() || text.trim().startsWith("#")) return undefined;
  const m = /^( *)(- +)?(?:([A-Za-z0-9_./-]+):(.*))?/.exec(text) as RegExpExecArray;
  const lead = (m[1] as string).length;
  const dash = m[2] !== undefined;
  return { lead, dash, col: lead + (m[2]?.length ?? 0), ...(m[3] !== undefined ? { key: m[3] } : {}), opens: m[3] !== undefined && (m[4] ?? "").trim() === "" };
}

/**
 * Where the cursor is in a YAML document, from indentation alone (it must work while the document is
 * half-typed and does not parse): the key path of the mapping the cursor's line belongs to (numbers
 * for list items), and the key already typed on the line, if any.
 */
export function yamlContext(text: string, offset: number): { path: (string | number)[]; key?: string; afterColon: boolean } {
  const lines = text.slice(0, offset).split("\n");
  const currentText = lines.at(-1) ?? "";
  const current = lineOf(currentText) ?? { lead: currentText.length, dash: false, col: currentText.length, opens: false };
  const path: (string | number)[] = [];
  let target = current.col;
  // Inside a list item whose "- " is at `target`: its key may sit at that same column (`key:\n- a`).
  let item = false;
  if (current.dash) {
    path.unshift(0);
    target = current.lead;
    item = true;
  }
  for (let i = lines.length - 2; i >= 0 && (target > 0 || item); i--) {
    const line = lineOf(lines[i] as string);
    if (!line) continue;
    if (line.dash && line.col === target && !item) {
      // An earlier key of the same list item.
      path.unshift(0);
      target = line.lead;
      item = true;
    } else if (line.dash && item && line.lead === target) {
      // An earlier item of the same list.
    } else if ((line.col < target || (item && !line.dash && line.col === target)) && line.key !== undefined && line.opens) {
      item = false;
      path.unshift(line.key);
      // `- key:` opens a block inside a list item: the item comes first.
      if (line.dash) path.unshift(0);
      target = line.dash ? line.lead : line.col;
      item = line.dash;
    }
  }
  const typed = /^ *(?:- +)?([A-Za-z0-9_./-]+):/.exec(currentText);
  return { path, ...(typed ? { key: typed[1] as string } : {}), afterColon: typed !== null };
}
