import type { HttpMatcher, WorkloadSelector } from "../../api/index";
import { compareStrings } from "../compare";
import type { HttpMatch, StringMatch } from "./types";

/** Matches any value, but only when the header or parameter is present (Envoy requires presence for every matcher). */
const PRESENT: StringMatch = { regex: ".*" };

function valueMatch(value: string | undefined, regex: boolean | undefined): StringMatch {
  if (value === undefined) return PRESENT;
  return regex === true ? { regex: value } : { exact: value };
}

/**
 * One httpRequestMatcher as an Istio match (without port and sources). Header names are lower-cased
 * because Istio rejects upper-case header keys in matches; `invertMatch` headers become
 * `withoutHeaders`; a header or parameter without a value matches on presence.
 */
export function requestMatch(matcher: HttpMatcher): HttpMatch {
  const out: HttpMatch = {};
  const { uri } = matcher;
  if (uri !== undefined) {
    out.uri = uri.exact !== undefined ? { exact: uri.exact } : uri.prefix !== undefined ? { prefix: uri.prefix } : { regex: uri.regex as string };
    if (uri.ignoreCase === true) out.ignoreUriCase = true;
  }
  if (matcher.method !== undefined) out.method = { exact: matcher.method };
  for (const h of matcher.headers ?? []) {
    const field = h.invertMatch === true ? "withoutHeaders" : "headers";
    out[field] = { ...out[field], [h.name.toLowerCase()]: valueMatch(h.value, h.regex) };
  }
  for (const q of matcher.queryParameters ?? []) {
    out.queryParams = { ...out.queryParams, [q.name]: valueMatch(q.value, q.regex) };
  }
  return out;
}

/**
 * The source side of matches in `cluster` for a policy's sourceSelector (OR of selectors): labels
 * become `sourceLabels`, each listed namespace its own match with `sourceNamespace` (Istio takes one
 * namespace per match, and matches OR), and a selector limited to other clusters contributes nothing
 * here, because a VirtualService only steers clients in its own cluster. No selectors → one empty
 * match (every source); selectors none of which apply here → no match at all.
 */
export function sourceMatches(sources: readonly WorkloadSelector[] | undefined, cluster: string): HttpMatch[] {
  if (sources === undefined || sources.length === 0) return [{}];
  const out = new Map<string, HttpMatch>();
  for (const { kubeWorkloadMatcher: m } of sources) {
    if (m.clusters !== undefined && !m.clusters.includes(cluster)) continue;
    const base: HttpMatch = m.labels !== undefined && Object.keys(m.labels).length > 0 ? { sourceLabels: m.labels } : {};
    const variants = m.namespaces === undefined ? [base] : [...new Set(m.namespaces)].sort(compareStrings).map((ns) => ({ ...base, sourceNamespace: ns }));
    for (const v of variants) out.set(JSON.stringify([v.sourceNamespace, Object.entries(v.sourceLabels ?? {}).sort()]), v);
  }
  return [...out.values()];
}

/** Every (request matcher × source) combination for `cluster`, each one Istio match without a port. */
export function matchVariants(sources: readonly WorkloadSelector[] | undefined, matchers: readonly HttpMatcher[] | undefined, cluster: string): HttpMatch[] {
  const requests = matchers === undefined || matchers.length === 0 ? [{}] : matchers.map(requestMatch);
  const sourceSide = sourceMatches(sources, cluster);
  return requests.flatMap((r) => sourceSide.map((s) => ({ ...r, ...s })));
}

/** True when a match restricts nothing but the port: it catches all traffic to that port. */
export function isCatchAll(match: HttpMatch): boolean {
  return Object.keys(match).every((key) => key === "port");
}
