import type { ClusterObjects } from "@meshplane/core";
import type { Logger } from "../observability/log";
import { istiodClusterId, relayWorkloads } from "./cluster-context";
import { MetricsLoop, type MetricsLoopDeps } from "./loop";
import { readMinute } from "./minute";
import type { MetricsOptions } from "./options";
import { PrometheusClient } from "./prometheus";

export interface StartMetricsDeps {
  cluster: string;
  /** What discovery watches; undefined until every list has been read once. */
  objects: () => Pick<ClusterObjects, "deployments" | "gateways"> | undefined;
  post: (gzipped: Uint8Array) => Promise<void>;
  active: () => boolean;
  log: Logger;
  counters?: MetricsLoopDeps["counters"];
}

/**
 * Starts reading the cluster's Prometheus and sending golden signals (docs/agent.md#metrics), on a
 * timer of its own; the answer's `stop()` ends it. The Istio cluster ID is the configured one, else
 * istiod's; the relays are the ones discovery sees at each read. Nothing is read or sent before
 * discovery has listed the cluster once.
 */
export function startMetrics(options: MetricsOptions, deps: StartMetricsDeps): { stop(): void; loop: MetricsLoop } {
  const prometheus = new PrometheusClient(options.prometheus);
  const loop = new MetricsLoop({
    cluster: deps.cluster,
    context: () => {
      const objects = deps.objects();
      if (!objects) throw new Error("discovery has not listed the cluster yet");
      return { istioClusterId: options.istioClusterId ?? istiodClusterId(objects), relays: relayWorkloads(objects) };
    },
    readMinute: (start, relays) => readMinute(prometheus, start, relays),
    post: deps.post,
    active: deps.active,
    log: deps.log,
    intervalMs: options.intervalMs,
    sendEveryMs: options.sendEveryMs,
    maxEdges: options.maxEdges,
    settleMs: options.settleMs,
    ...(deps.counters ? { counters: deps.counters } : {}),
  });
  loop.start();
  deps.log.info("metrics: reading Prometheus", { prometheus: new URL(options.prometheus.url).origin, sendEverySeconds: options.sendEveryMs / 1000 });
  return { stop: () => loop.stop(), loop };
}
