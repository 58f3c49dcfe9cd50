import type { z } from "zod";
import { type FieldError, ValidationError } from "../errors";

/** Dotted path of a zod issue: `spec.policy.retries.attempts`, `spec.meshes[0].name`. */
export function issuePath(path: readonly PropertyKey[], prefix = ""): string {
  let out = prefix;
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

/** The field errors of a failed parse, one per issue, unions flattened to their most specific branch. */
export function fieldErrors(error: z.ZodError, prefix = ""): FieldError[] {
  return error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      return {
        path: issuePath([...issue.path, issue.keys[0] as string], prefix),
        message: `unknown field${issue.keys.length > 1 ? `s ${issue.keys.join(", ")}` : ""}`,
      };
    }
    return { path: issuePath(issue.path, prefix), message: issue.message };
  });
}

/**
 * Parses `value` with `schema`; returns the typed value or throws a ValidationError naming every
 * bad field. `what` names the input in the error title ("TrafficPolicy", "request body").
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string, prefix = ""): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ValidationError(`invalid ${what}`, fieldErrors(result.error, prefix));
}
