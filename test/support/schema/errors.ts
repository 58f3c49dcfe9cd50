/**
 * The fields of an ajv ErrorObject we read. Typed structurally because the Istio models validate
 * with their own copy of ajv; both produce this shape (with `verbose`, also `schema` and `data`).
 */
export interface AjvIssue {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
  schema?: unknown;
  data?: unknown;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/**
 * A JSON pointer (`/spec/http/0/timeout`) as the path a user would write: `spec.http[0].timeout`,
 * with keys that are not identifiers quoted (`metadata.labels["app.kubernetes.io/name"]`).
 */
export function readablePath(pointer: string, extra?: string): string {
  const parts =
    pointer === ""
      ? []
      : pointer
          .slice(1)
          .split("/")
          .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
  if (extra !== undefined) parts.push(extra);
  let out = "";
  for (const part of parts) {
    if (/^\d+$/.test(part)) out += `[${part}]`;
    else if (IDENTIFIER.test(part)) out += out === "" ? part : `.${part}`;
    else out += `[${JSON.stringify(part)}]`;
  }
  return out === "" ? "(root)" : out;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** The single required key of each oneOf branch that passed: Istio's "set one of" oneOfs look like this. */
function exclusiveKeys(issue: AjvIssue): string[] | undefined {
  const passing = issue.params.passingSchemas;
  if (!Array.isArray(passing) || !Array.isArray(issue.schema)) return undefined;
  const branches = issue.schema as { required?: unknown }[];
  const keys = passing.map((i) => (typeof i === "number" ? branches[i]?.required : undefined));
  return keys.every((k) => Array.isArray(k) && k.length === 1) ? keys.map((k) => String((k as unknown[])[0])) : undefined;
}

function describe(issue: AjvIssue): string {
  const { params } = issue;
  switch (issue.keyword) {
    case "required":
      return `${readablePath(issue.instancePath, String(params.missingProperty))}: required field is missing`;
    case "additionalProperties":
      return `${readablePath(issue.instancePath, String(params.additionalProperty))}: unknown field`;
    case "enum":
      return `${readablePath(issue.instancePath)}: must be one of ${(params.allowedValues as unknown[]).map(shown).join(", ")}${"data" in issue ? `, got ${shown(issue.data)}` : ""}`;
    case "type":
      return `${readablePath(issue.instancePath)}: must be ${String(params.type)}${"data" in issue ? `, got ${shown(issue.data)}` : ""}`;
    case "oneOf": {
      const keys = exclusiveKeys(issue);
      if (keys) return `${readablePath(issue.instancePath)}: set only one of ${keys.join(", ")}`;
      return `${readablePath(issue.instancePath)}: must match exactly one of the allowed forms`;
    }
    default:
      return `${readablePath(issue.instancePath)}: ${issue.message ?? issue.keyword}`;
  }
}

/**
 * One readable line per real problem, `path: what is wrong`, in ajv's order without duplicates.
 * Errors from inside a failed oneOf/anyOf's branches are dropped: they describe each alternative
 * that did not fit, and only the combinator's own error says what the user got wrong.
 */
export function describeAjvErrors(issues: readonly AjvIssue[]): string[] {
  const combinators = issues.filter((i) => i.keyword === "oneOf" || i.keyword === "anyOf").map((i) => `${i.schemaPath}/`);
  const kept = issues.filter((i) => !combinators.some((prefix) => i.schemaPath.startsWith(prefix)));
  return [...new Set(kept.map(describe))];
}
