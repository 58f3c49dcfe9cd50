import type { HttpMatcher } from "../../api/index";

type ValueMatch = { type: "Exact" | "RegularExpression"; name: string; value: string };

/** One HTTPRoute match (Gateway API `HTTPRouteMatch`). */
export type RouteMatch = {
  path?: { type: "Exact" | "PathPrefix" | "RegularExpression"; value: string };
  headers?: ValueMatch[];
  queryParams?: ValueMatch[];
  method?: string;
};

/**
 * Every path, as a regular expression, written out in every match that names no path. Istio turns
 * an HTTPRoute's matches into routes ordered by its own precedence — exact paths, then prefixes
 * (longest first), then regular expressions (longest first), then method, header and query counts
 * (`sortHTTPRoutes` in Istio's Gateway API conversion) — so a `PathPrefix /` (Gateway API's default,
 * which the API server would store) would sort before every regular expression and shadow it. As
 * `.*`, the catch-all sorts after every longer expression, and every other path is an exact path or
 * an expression (docs/ambient.md#trafficpolicy-as-httproute).
 */
export const EVERY_PATH = { type: "RegularExpression", value: ".*" } as const;

/** RE2 with every metacharacter escaped. */
function literal(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}

/**
 * A value match; without a value, presence (any value), as for Istio. Gateway API takes no empty
 * value, so an exact empty one is the expression matching only the empty string.
 */
function valueMatch(name: string, value: string | undefined, regex: boolean | undefined): ValueMatch {
  if (value === undefined) return { type: "RegularExpression", name, value: ".*" };
  if (value === "" && regex !== true) return { type: "RegularExpression", name, value: "^$" };
  return { type: regex === true ? "RegularExpression" : "Exact", name, value };
}

/** One match per name, the last listed winning, as in Istio's match maps (Gateway API refuses a name twice). */
function lastByName(matches: readonly ValueMatch[]): ValueMatch[] {
  return [...new Map(matches.map((m) => [m.name, m])).values()];
}

/** Gateway API's header and query parameter names (HTTPHeaderName). */
const PARAM_NAME = /^[A-Za-z0-9!#$%&'*+\-.^_`|~]{1,256}$/;

/** Characters Gateway API takes in an `Exact` or `PathPrefix` path (its CEL rules), and the sequences it refuses. */
const PATH_CHARS = /^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+$/;
const PATH_REFUSED = ["//", "/./", "/../", "%2f", "%2F", "#"];

/** Whether Gateway API takes `path` as an `Exact` path (absolute, and passing its CEL rules). */
function exactPathAllowed(path: string): boolean {
  return path.startsWith("/") && PATH_CHARS.test(path) && !PATH_REFUSED.some((s) => path.includes(s)) && !path.endsWith("/..") && !path.endsWith("/.");
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
    for (const q of m.queryParameters ?? []) {
      if (!PARAM_NAME.test(q.name))
        errors.add(`httpRequestMatchers queryParameters ${JSON.stringify(q.name)}: Gateway API matches only query parameter names that are HTTP tokens`);
    }
  }
  return [...errors];
}

/**
 * One httpRequestMatcher as an HTTPRoute match. A prefix becomes a regular expression: Gateway
 * API's `PathPrefix` matches whole path segments (`/api` does not catch `/apis`), Istio's prefix
 * any string; `/` is `EVERY_PATH`. An exact path Gateway
 * API refuses as `Exact` (not absolute, or with characters or sequences its CEL rules forbid, such
 * as `//` or a space) becomes the regular expression matching just it. Headers and query
 * parameters named twice keep the last, as Istio's match maps do. Without a uri, the path is
 * `EVERY_PATH`.
 */
export function routeMatch(matcher: HttpMatcher): RouteMatch {
  const out: RouteMatch = {};
  const uri = matcher.uri;
  if (uri?.exact !== undefined) {
    out.path = exactPathAllowed(uri.exact) ? { type: "Exact", value: uri.exact } : { type: "RegularExpression", value: literal(uri.exact) };
  } else if (uri?.prefix !== undefined) {
    out.path = uri.prefix === "/" ? { ...EVERY_PATH } : { type: "RegularExpression", value: `${literal(uri.prefix)}.*` };
  } else if (uri?.regex !== undefined) out.path = { type: "RegularExpression", value: uri.regex };
  else out.path = { ...EVERY_PATH };
  if (matcher.headers?.length) out.headers = lastByName(matcher.headers.map((h) => valueMatch(h.name.toLowerCase(), h.value, h.regex)));
  if (matcher.queryParameters?.length) out.queryParams = lastByName(matcher.queryParameters.map((q) => valueMatch(q.name, q.value, q.regex)));
  if (matcher.method !== undefined) out.method = matcher.method;
  return out;
}
