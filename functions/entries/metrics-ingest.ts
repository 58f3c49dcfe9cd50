import { readEnv } from "./env";
import { metricsConfig } from "./runtime";
import { metricsWriter } from "../metrics/index";
import { createLogger } from "../shared/logger";

const config = metricsConfig(readEnv());
if (config === undefined) throw new Error("MESHPLANE_METRICS_BUCKET and MESHPLANE_METRICS_QUEUE_URL are required");

/** The ingest function on the metrics queue: one segment per shard and hour of each batch (functions/metrics/objects/writer.ts). */
export const handler = metricsWriter(config, createLogger({ service: "metrics-ingest" }));
