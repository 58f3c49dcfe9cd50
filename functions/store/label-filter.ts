import type { Requirement } from "@meshplane/core/base";
import type { Filter } from "./page";

/** The attribute a resource item keeps its labels in, as a map, for DynamoDB to filter on. */
export const LABELS_ATTRIBUTE = "labels";

/** DynamoDB's limits: an expression of at most 4 KB, an IN of at most 100 values. */
const MAX_EXPRESSION_CHARS = 4096;
const MAX_IN_VALUES = 100;

/**
 * A label selector as a DynamoDB FilterExpression over the `labels` map, so DynamoDB drops what does
 * not match before it reaches us. Items without the map (written before it existed, or whose labels
 * were too big to copy) pass, and are judged by `matchesLabels` like every item: the expression only
 * ever narrows, so a requirement DynamoDB cannot express (an IN of more than 100 values) is left out
 * of it, and a selector too long for an expression filters in memory alone. Undefined = no filter.
 */
export function labelFilter(selector: readonly Requirement[]): Filter | undefined {
  const names: Record<string, string> = { "#labels": LABELS_ATTRIBUTE };
  const values: Record<string, unknown> = {};
  const keyOf = new Map<string, string>();
  const path = (key: string): string => {
    let placeholder = keyOf.get(key);
    if (placeholder === undefined) {
      placeholder = `#l${keyOf.size}`;
      keyOf.set(key, placeholder);
      names[placeholder] = key;
    }
    return `#labels.${placeholder}`;
  };
  const value = (v: string): string => {
    const placeholder = `:l${Object.keys(values).length}`;
    values[placeholder] = v;
    return placeholder;
  };
  const terms: string[] = [];
  for (const r of selector) {
    const term = requirementTerm(r, path, value);
    if (term !== undefined) terms.push(term);
  }
  if (terms.length === 0) return undefined;
  // DynamoDB refuses redundant parentheses: a single term goes bare (an OR term brings its own).
  const expression = `attribute_not_exists(#labels) OR ${terms.length === 1 ? terms[0] : `(${terms.join(" AND ")})`}`;
  if (expression.length > MAX_EXPRESSION_CHARS) return undefined;
  return { expression, names, values };
}

/** One requirement with Kubernetes' meaning: `!=` and `notin` also match an item without the key. */
function requirementTerm(r: Requirement, path: (key: string) => string, value: (v: string) => string): string | undefined {
  // Placeholders are made only for terms that are kept: DynamoDB refuses unused ones.
  if ((r.op === "in" || r.op === "notin") && r.values.length > MAX_IN_VALUES) return undefined;
  const p = path(r.key);
  switch (r.op) {
    case "=":
      return `${p} = ${value(r.value)}`;
    case "!=":
      return `(attribute_not_exists(${p}) OR ${p} <> ${value(r.value)})`;
    case "in":
      return `${p} IN (${r.values.map(value).join(", ")})`;
    case "notin":
      return `(attribute_not_exists(${p}) OR NOT (${p} IN (${r.values.map(value).join(", ")})))`;
    case "exists":
      return `attribute_exists(${p})`;
    case "!exists":
      return `attribute_not_exists(${p})`;
  }
}
