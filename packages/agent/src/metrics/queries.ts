/**
 * The PromQL the agent runs for each minute (docs/observability.md#istios-metrics): three instant
 * queries at the minute's end, the same three every minute, whatever the traffic.
 *
 * Each raw counter's increase over the minute is its value at the minute's end minus its value at
 * the start (`offset 1m`), series by series, before anything is summed: a pod that restarts (its
 * counters start again from 0) or goes away changes only its own series. A series that fell is a
 * counter reset, whose increase is its new value; a series without a value at the start has no
 * baseline and gives no increase that minute. `increase()` is never used: it extrapolates to the
 * window's edges and answers fractions of requests.
 *
 * Sums are `by` an explicit list of Istio's labels, never the target labels a scrape setup adds; the
 * edge's seven (EDGE_LABELS) are joined into one, `edge`, before summing. The server's view (`reporter` `destination` or `waypoint`) is kept, and the client's (`source`) only
 * for an edge the server side reports nothing of (`or on(edge)`); `view` says which. Rows
 * that did not move are left out (`> 0`).
 */

/** An edge, as Istio labels it: who called (workload), whom (Service), how. */
export const EDGE_LABELS = [
  "source_cluster",
  "source_workload_namespace",
  "source_workload",
  "destination_cluster",
  "destination_service_namespace",
  "destination_service_name",
  "request_protocol",
] as const;

/**
 * What joins the edge's labels in the one label `edge` the answers carry (a third of the bytes of
 * seven labels, to read and parse each minute). No Kubernetes name or Istio cluster ID holds it, so a
 * value that does is seen: its edge has more than seven parts.
 */
export const EDGE_SEPARATOR = "|";

const joinEdge = (s: string) => `label_join(${s}, "edge", "${EDGE_SEPARATOR}", ${EDGE_LABELS.map((l) => `"${l}"`).join(", ")})`;

const SERVER = 'reporter=~"destination|waypoint"';
const CLIENT = 'reporter="source"';

/** The metrics of the `sums` query, each tagged with a short name in label `m`. */
export const SUM_METRICS = {
  request_bytes: "istio_request_bytes_sum",
  response_bytes: "istio_response_bytes_sum",
  tcp_received_bytes: "istio_tcp_received_bytes_total",
  tcp_sent_bytes: "istio_tcp_sent_bytes_total",
  tcp_connections_opened: "istio_tcp_connections_opened_total",
  tcp_connections_closed: "istio_tcp_connections_closed_total",
} as const;
export type SumMetric = keyof typeof SUM_METRICS;

/**
 * The increase of every raw series `selector` names over the minute ending at the query's time;
 * `wrap` is applied to both ends alike (label_replace on a selector and its `offset`).
 */
function increase(selector: string, wrap: (s: string) => string = (s) => s): string {
  const now = joinEdge(wrap(selector));
  const before = joinEdge(wrap(`${selector} offset 1m`));
  return `(${now} - ${before} >= 0 or ${now} - 0 * ${before})`;
}

/** `sum by (…)` of one view's increases, tagged `view`. */
function view(name: "server" | "client", by: readonly string[], selector: (reporter: string) => string, wrap?: (s: string) => string): string {
  return `label_replace(sum by (${by.join(", ")}) (${increase(selector(name === "server" ? SERVER : CLIENT), wrap)}), "view", "${name}", "", "")`;
}

/** The server's view of each edge, else the client's, rows that moved only. */
function serverElseClient(by: readonly string[], selector: (reporter: string) => string, wrap?: (s: string) => string): string {
  const edgeBy = ["edge", ...by];
  return `(${view("server", edgeBy, selector, wrap)} or on(edge) ${view("client", edgeBy, selector, wrap)}) > 0`;
}

/** The label that tags each series of the `sums` query with its SUM_METRICS key. */
const tagMetric = (s: string) => `label_replace(${s}, "m", "$1", "__name__", "istio_(${Object.keys(SUM_METRICS).join("|")})_(?:sum|total)")`;

/**
 * The three queries of a minute, each by `edge` and:
 * - `requests`: by outcome (`response_code`, `grpc_response_status`), from which requests,
 *   non2xx, errors5xx, grpcErrors and failures follow;
 * - `latency`: `istio_request_duration_milliseconds_bucket` by `le` (cumulative);
 * - `sums`: request and response bytes (`_sum` of Istio's size histograms) and the four TCP counters,
 *   by metric (`m`, the name without `istio_` and `_sum`/`_total`). Also by destination workload, so that hops to and from a relay
 *   (ztunnel's through a waypoint, an east-west gateway's) can be told apart and dropped.
 */
export function minuteQueries(): { requests: string; latency: string; sums: string } {
  const sumNames = Object.values(SUM_METRICS).join("|");
  return {
    requests: serverElseClient(["response_code", "grpc_response_status"], (r) => `istio_requests_total{${r}}`),
    latency: serverElseClient(["le"], (r) => `istio_request_duration_milliseconds_bucket{${r}}`),
    sums: serverElseClient(["m", "destination_workload_namespace", "destination_workload"], (r) => `{__name__=~"${sumNames}",${r}}`, tagMetric),
  };
}
