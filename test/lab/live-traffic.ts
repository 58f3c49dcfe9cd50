/**
 * The traffic model (test/metrics/traffic-model.ts) written into each cluster's Prometheus as time
 * passes, as Istio's proxies would be scraped: every sample up to a minute ahead of now at once, then
 * every 15 s the next ones. Past the model's end the counters go on: each series repeats its last
 * five minutes' increments, step by step (the model's minute-to-minute wobble repeats every five
 * minutes, so the traffic goes on as it was), never a reset.
 */
import type { ClusterName, TrafficModel } from "../metrics/traffic-model";
import type { PrometheusServer } from "../support/prometheus/server";
import type { Sample, Series } from "../support/prometheus/remote-write";

/** Steps of 15 s the counters repeat past the model's end: five minutes. */
const CYCLE_STEPS = 20;

/** One series as it goes on: its labels, the model's values, its repeated increments, and how far it was written. */
interface Running {
  labels: Series["labels"];
  values: number[];
  cycle: number[];
}

function running(series: Series): Running {
  const values = series.samples.map(([, v]) => v);
  const n = values.length - 1;
  if (n < CYCLE_STEPS) throw new Error("a model shorter than the five minutes live traffic repeats");
  const cycle = Array.from({ length: CYCLE_STEPS }, (_, j) => (values[n - CYCLE_STEPS + j + 1] as number) - (values[n - CYCLE_STEPS + j] as number));
  return { labels: series.labels, values, cycle };
}

/** The value of `r` at step `i` (from the model's base), extending its values as far as needed. */
function valueAt(r: Running, i: number): number {
  const n = r.values.length;
  for (let k = n; k <= i; k++) r.values.push((r.values[k - 1] as number) + (r.cycle[(k - n) % CYCLE_STEPS] as number));
  return r.values[i] as number;
}

export interface LiveTraffic {
  /** Epoch seconds of the last sample written. */
  writtenUntil(): number;
  stop(): Promise<void>;
}

/**
 * Writes `model` into `servers` (one per cluster) up to `aheadSeconds` past now (default 60; Prometheus
 * takes samples up to 10 minutes ahead), resolves once that is written, and goes on every `everyMs`
 * (default 15 s) until stop(). A failed write is tried again on the next tick; `onError` hears of it.
 */
export async function startLiveTraffic(
  model: TrafficModel,
  servers: Record<ClusterName, PrometheusServer>,
  options: { aheadSeconds?: number; everyMs?: number; onError?: (error: unknown) => void } = {},
): Promise<LiveTraffic> {
  const ahead = options.aheadSeconds ?? 60;
  const clusters = Object.keys(servers) as ClusterName[];
  const all = Object.fromEntries(clusters.map((c) => [c, model.series[c].map(running)])) as Record<ClusterName, Running[]>;
  const step = model.stepSeconds;
  let written = -1;
  const write = async () => {
    const last = Math.floor((Date.now() / 1000 + ahead - model.base) / step);
    if (last <= written) return;
    const indexes = Array.from({ length: last - written }, (_, k) => written + 1 + k);
    await Promise.all(
      clusters.map((c) =>
        servers[c].write(all[c].map((r) => ({ labels: r.labels, samples: indexes.map((i): Sample => [(model.base + i * step) * 1000, valueAt(r, i)]) }))),
      ),
    );
    written = last;
  };
  await write();
  let stopped = false;
  let pending = Promise.resolve();
  const timer = setInterval(() => {
    pending = pending.then(() => (stopped ? undefined : write().catch((error: unknown) => options.onError?.(error))));
  }, options.everyMs ?? 15_000);
  return {
    writtenUntil: () => model.base + written * step,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pending;
    },
  };
}
