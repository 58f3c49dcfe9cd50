import { type PrometheusServer, startPrometheus } from "../support/prometheus/server";
import { CLUSTER_IDS, type ClusterName, type TrafficModel, trafficModel } from "./traffic-model";

/** The model's clusters, by meshplane name. */
export const MODEL_CLUSTERS = Object.keys(CLUSTER_IDS) as ClusterName[];
/** A model cluster's name by its Istio cluster ID. */
export const CLUSTER_OF_ID = Object.fromEntries(Object.entries(CLUSTER_IDS).map(([name, id]) => [id, name])) as Record<string, ClusterName>;

/**
 * The traffic model, minute-aligned and an hour in the past (the whole model is history, as a test's
 * data always is), loaded into a real Prometheus per cluster. Each server is kept as soon as it is up,
 * so `stop()` stops it even when another failed to start.
 */
export async function modelInPrometheus(): Promise<{ model: TrafficModel; servers: Record<ClusterName, PrometheusServer>; stop(): Promise<void> }> {
  const model = trafficModel({ base: Math.floor(Date.now() / 60_000) * 60 - 3600 });
  const servers = {} as Record<ClusterName, PrometheusServer>;
  const stop = async () => {
    await Promise.all(Object.values(servers).map((s) => s.stop()));
  };
  try {
    await Promise.all(MODEL_CLUSTERS.map(async (c) => (servers[c] = await startPrometheus())));
    await Promise.all(MODEL_CLUSTERS.map((c) => servers[c].write(model.series[c])));
  } catch (error) {
    await stop();
    throw error;
  }
  return { model, servers, stop };
}
