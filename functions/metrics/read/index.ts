export { type GraphFilter, graphEdges, graphPage } from "./graph";
export { impactsIn } from "./impacts";
export { impactsOf, markersFor, minutesOf } from "./markers";
export { type MetricsReadDeps, loadWorld, readDestinationMetrics, readGraph, readImpacts } from "./reads";
export { type OtherTraffic, type Place, type ResolvedRow, clusterIds, resolveRows } from "./resolve";
export { destinationSeries, pointsOf, rowsInto } from "./series";
export { DURATION, MAX_GRAPH_WINDOW_S, MAX_POINTS, MAX_SERIES_WINDOW_S, type TimeRange, durationSeconds, timeRange } from "./window";
export { type World, worldOf } from "./world";
