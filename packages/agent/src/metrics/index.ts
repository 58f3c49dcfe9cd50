// Golden signals from the cluster's Prometheus (docs/agent.md#metrics): the client, the queries of a
// minute, the report and the timer that reads and sends.
export { DEFAULT_ISTIO_CLUSTER_ID, istiodClusterId, relayWorkloads } from "./cluster-context";
export { type MetricsLoopDeps, MetricsLoop } from "./loop";
export { type EdgeCounts, type MinuteCounts, type MinuteVectors, type RelaySet, minuteCounts, readMinute } from "./minute";
export { METRICS_FLAGS, type MetricsOptions, PROMETHEUS_ANSWER_LIMITS, metricsFlags, metricsOptions } from "./options";
export { type PackedReport, packReports } from "./pack";
export {
  type PrometheusAuth,
  type PrometheusErrorKind,
  type PrometheusOptions,
  type Sample,
  PrometheusClient,
  PrometheusError,
} from "./prometheus";
export { EDGE_LABELS, SUM_METRICS, type SumMetric, minuteQueries } from "./queries";
export { type ReportInput, buildReport } from "./report";
export { type StartMetricsDeps, startMetrics } from "./start";
