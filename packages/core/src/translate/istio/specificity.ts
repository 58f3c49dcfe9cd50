import { compareStrings } from "../compare";
import type { HttpMatch } from "./types";

/** A rendered route with what ordering needs besides its match. */
export interface RankedRoute {
  match: HttpMatch;
  /** Position in acceptance order of the first policy of its group: older groups first among equals. */
  rank: number;
  /** Tie-breaker of last resort, so equal routes still sort the same way every time. */
  text: string;
}

function uriRank(match: HttpMatch): number {
  if (match.uri?.exact !== undefined) return 0;
  if (match.uri?.regex !== undefined) return 1;
  if (match.uri?.prefix !== undefined) return 2;
  return 3;
}

function uriLength(match: HttpMatch): number {
  const uri = match.uri;
  return (uri?.exact ?? uri?.regex ?? uri?.prefix ?? "").length;
}

const count = (record: object | undefined) => (record === undefined ? 0 : Object.keys(record).length);

/**
 * Most specific first (docs/resources.md#trafficpolicy), because Istio takes the first route that
 * matches: exact URI, then regex, then prefix, then none; longer URIs first; then more header
 * conditions, more query parameters, more source labels (a source namespace counting as one more),
 * a method before none. Ties go to acceptance order, then port, then the match text.
 */
export function compareSpecificity(a: RankedRoute, b: RankedRoute): number {
  const x = a.match;
  const y = b.match;
  return (
    uriRank(x) - uriRank(y) ||
    uriLength(y) - uriLength(x) ||
    count(y.headers) + count(y.withoutHeaders) - (count(x.headers) + count(x.withoutHeaders)) ||
    count(y.queryParams) - count(x.queryParams) ||
    count(y.sourceLabels) + (y.sourceNamespace ? 1 : 0) - (count(x.sourceLabels) + (x.sourceNamespace ? 1 : 0)) ||
    (y.method ? 1 : 0) - (x.method ? 1 : 0) ||
    a.rank - b.rank ||
    (x.port ?? 0) - (y.port ?? 0) ||
    compareStrings(a.text, b.text)
  );
}
