import type { HttpMatcher } from "../../api/index";

type ValueMatch = { type: "Exact" | "RegularExpression"; name: string; value: string };

/** One HTTPRoute match (Gateway API `HTTPRouteMatch`). */
export type RouteMatch = {
  path?: { type: "Exact" | "PathPrefix" | "RegularExpression"; value: string };
  headers?: ValueMatch[];
  queryParams?: ValueMatch[];
  method?: string;
};

/** RE2 with every metacharacter escaped. */
function literal(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

/** A value match; without a value, presence (any value), as for Istio. */
function valueMatch(name: string, value: string | undefined, regex: boolean | undefined): ValueMatch {
  if (value === undefined) return { type: "RegularExpression", name, value: ".*" };
  return { type: regex === true ? "RegularExpression" : "Exact", name, value };
}

/**
 * Why a matcher has no HTTPRoute form: Gateway API matches no absent header (`invertMatch`) and
 * no path regardless of case (`ignoreCase`).
 */
export function matcherErrors(matchers: readonly HttpMatcher[] | undefined): string[] {
  const errors = new Set<string>();
  for (const m of matchers ?? []) {
    if (m.uri?.ignoreCase === true) errors.add("httpRequestMatchers uri.ignoreCase: Gateway API matches paths case-sensitively only");
    if (m.headers?.some((h) => h.invertMatch === true)) errors.add("httpRequestMatchers headers invertMatch: Gateway API cannot match a header's absence");
  }
  return [...errors];
}

/**
 * One httpRequestMatcher as an HTTPRoute match. A prefix becomes a regular expression: Gateway
 * API's `PathPrefix` matches whole path segments (`/api` does not catch `/apis`), Istio's prefix
 * any string, so only `/` (which means the same in both) stays a PathPrefix. An exact path that is
 * not absolute (Gateway API refuses it) becomes a regular expression too.
 */
export function routeMatch(matcher: HttpMatcher): RouteMatch {
  const out: RouteMatch = {};
  const uri = matcher.uri;
  if (uri?.exact !== undefined) {
    out.path = uri.exact.startsWith("/") ? { type: "Exact", value: uri.exact } : { type: "RegularExpression", value: literal(uri.exact) };
  } else if (uri?.prefix !== undefined) {
    out.path = uri.prefix === "/" ? { type: "PathPrefix", value: "/" } : { type: "RegularExpression", value: `${literal(uri.prefix)}.*` };
  } else if (uri?.regex !== undefined) out.path = { type: "RegularExpression", value: uri.regex };
  if (matcher.headers?.length) out.headers = matcher.headers.map((h) => valueMatch(h.name.toLowerCase(), h.value, h.regex));
  if (matcher.queryParameters?.length) out.queryParams = matcher.queryParameters.map((q) => valueMatch(q.name, q.value, q.regex));
  if (matcher.method !== undefined) out.method = matcher.method;
  return out;
}
