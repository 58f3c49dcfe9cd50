/**
 * Kubernetes label selector strings (`app=web,tier!=db,env in (a,b),!legacy`), parsed once at the
 * boundary into requirements that `matchesLabels` evaluates.
 */
export type Requirement =
  | { key: string; op: "=" | "!="; value: string }
  | { key: string; op: "in" | "notin"; values: string[] }
  | { key: string; op: "exists" | "!exists" };

const KEY = /^([A-Za-z0-9][-A-Za-z0-9_./]*)?[A-Za-z0-9]$/;
const VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Splits on commas that are not inside a parenthesised value set. */
function splitTerms(text: string): string[] {
  const terms: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms.map((t) => t.trim());
}

function parseTerm(term: string): Requirement {
  let m = /^(\S+?)\s+(in|notin)\s+\(([^)]*)\)$/.exec(term);
  if (m) {
    const values = (m[3] as string)
      .split(",")
      .map((v) => v.trim())
      .filter((v) => v !== "");
    if (values.length === 0 || !values.every((v) => VALUE.test(v))) throw new Error(`bad value set in "${term}"`);
    return checkKey({ key: m[1] as string, op: m[2] as "in" | "notin", values });
  }
  m = /^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(term);
  if (m) {
    if (!VALUE.test(m[3] as string)) throw new Error(`bad label value in "${term}"`);
    return checkKey({ key: m[1] as string, op: m[2] === "!=" ? "!=" : "=", value: m[3] as string });
  }
  m = /^(!?)\s*([^=!\s()]+)$/.exec(term);
  if (m) return checkKey({ key: m[2] as string, op: m[1] ? "!exists" : "exists" });
  throw new Error(`cannot parse "${term}"`);
}

function checkKey<R extends Requirement>(req: R): R {
  if (!KEY.test(req.key)) throw new Error(`bad label key "${req.key}"`);
  return req;
}

/** Parses a selector; throws an Error whose message says which term is wrong. Empty text = everything. */
export function parseLabelSelector(text: string): Requirement[] {
  if (text.trim() === "") return [];
  return splitTerms(text).map((term) => {
    if (term === "") throw new Error("empty term");
    return parseTerm(term);
  });
}

/** True when `labels` satisfies every requirement (an empty list matches all). */
export function matchesLabels(requirements: readonly Requirement[], labels: Record<string, string> | undefined): boolean {
  const l = labels ?? {};
  return requirements.every((r) => {
    const has = Object.hasOwn(l, r.key);
    const value = has ? l[r.key] : undefined;
    switch (r.op) {
      case "=":
        return value === r.value;
      case "!=":
        return value !== r.value;
      case "in":
        return has && r.values.includes(value as string);
      case "notin":
        return !has || !r.values.includes(value as string);
      case "exists":
        return has;
      case "!exists":
        return !has;
    }
  });
}
