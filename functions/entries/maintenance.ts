import { z } from "zod";
import { readEnv } from "./env";
import { createRuntime, metricsConfig } from "./runtime";
import { runMaintenance } from "../ops/maintenance";
import { compactMetrics } from "../metrics/index";

const env = readEnv();
const runtime = createRuntime(env);
const metrics = metricsConfig(env);
const event = z.object({ task: z.enum(["reconcile", "refresh", "compact-metrics"]) });

export const handler = async (input: unknown): Promise<{ enqueued: number } | { hourObjects: number; dayObjects: number }> => {
  const { task } = event.parse(input);
  if (task === "compact-metrics") return metrics ? compactMetrics(metrics, runtime.worker.log, new Date()) : { hourObjects: 0, dayObjects: 0 };
  return { enqueued: await runMaintenance({ store: runtime.store, queue: runtime.app.queue, log: runtime.worker.log, now: () => new Date() }, task) };
};
