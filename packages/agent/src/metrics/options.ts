import { METRICS_LIMITS, istioClusterId } from "@meshplane/core";
import { z } from "zod";
import type { PrometheusAuth, PrometheusOptions } from "./prometheus";

/**
 * The agent's metrics options (chart values `metrics.*`, docs/agent.md#metrics): their flags, the
 * environment variables they fall back to, and their schema. `../options.ts` reads them with the rest.
 */

/** Reading the cluster's Prometheus and sending golden signals. */
export interface MetricsOptions {
  prometheus: Omit<PrometheusOptions, "fetch" | "readFile">;
  /** How often the minutes that ended are read. */
  intervalMs: number;
  /** How often a report is sent (60–900 s). */
  sendEveryMs: number;
  /** Edges named in a report; the rest is summed into `other`. */
  maxEdges: number;
  /** How long after a minute's end it is read, so that every scrape of it has landed. */
  settleMs: number;
  /** The cluster's Istio cluster ID when set (chart `metrics.istioClusterId`); else istiod's `CLUSTER_ID`, else `Kubernetes`. */
  istioClusterId?: string;
}

export const METRICS_FLAGS = {
  metrics: "MESHPLANE_METRICS",
  "prometheus-url": "MESHPLANE_PROMETHEUS_URL",
  "prometheus-auth": "MESHPLANE_PROMETHEUS_AUTH",
  "prometheus-secret-dir": "MESHPLANE_PROMETHEUS_SECRET_DIR",
  "prometheus-org-id": "MESHPLANE_PROMETHEUS_ORG_ID",
  "prometheus-timeout": "MESHPLANE_PROMETHEUS_TIMEOUT_SECONDS",
  "metrics-interval": "MESHPLANE_METRICS_INTERVAL_SECONDS",
  "metrics-send-every": "MESHPLANE_METRICS_SEND_EVERY_SECONDS",
  "metrics-max-edges": "MESHPLANE_METRICS_MAX_EDGES",
  "metrics-settle": "MESHPLANE_METRICS_SETTLE_SECONDS",
  "istio-cluster-id": "MESHPLANE_ISTIO_CLUSTER_ID",
} as const;

/** The most series (`limit=`) and bytes one Prometheus answer may hold. */
export const PROMETHEUS_ANSWER_LIMITS = { maxSeries: 100_000, maxBodyBytes: 32 * 1024 * 1024 } as const;

const seconds = (min: number, max: number, fallback: number) =>
  z.coerce.number().int().min(min, `must be at least ${min} seconds`).max(max, `must be at most ${max} seconds`).default(fallback);

export const metricsFlags = {
  metrics: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("true")
    .transform((v) => v === "true"),
  "prometheus-url": z.union([z.literal("none"), z.url({ protocol: /^https?$/, error: "must be an http(s) URL or none" })]).default("none"),
  "prometheus-auth": z.enum(["none", "bearer", "basic"], { error: "must be none, bearer or basic" }).default("none"),
  "prometheus-secret-dir": z.string().min(1).default("/etc/meshplane/prometheus"),
  "prometheus-org-id": z.string().min(1).max(256).optional(),
  "prometheus-timeout": seconds(1, 120, 20),
  "metrics-interval": seconds(60, 900, 60),
  "metrics-send-every": seconds(60, 900, 300),
  "metrics-max-edges": z.coerce.number().int().min(1).max(METRICS_LIMITS.edges).default(METRICS_LIMITS.edges),
  "metrics-settle": seconds(0, 300, 30),
  "istio-cluster-id": istioClusterId.optional(),
};

type Parsed = z.infer<z.ZodObject<typeof metricsFlags>>;

/** The metrics options from the parsed flags; undefined when off (`--metrics=false`, or the URL `none`). */
export function metricsOptions(o: Parsed): MetricsOptions | undefined {
  const url = o["prometheus-url"];
  if (!o.metrics || url === "none") return undefined;
  const dir = o["prometheus-secret-dir"].replace(/\/+$/, "");
  const auth: PrometheusAuth =
    o["prometheus-auth"] === "bearer"
      ? { type: "bearer", tokenFile: `${dir}/token` }
      : o["prometheus-auth"] === "basic"
        ? { type: "basic", usernameFile: `${dir}/username`, passwordFile: `${dir}/password` }
        : { type: "none" };
  return {
    prometheus: {
      url,
      auth,
      ...(o["prometheus-org-id"] ? { orgId: o["prometheus-org-id"] } : {}),
      timeoutMs: o["prometheus-timeout"] * 1000,
      ...PROMETHEUS_ANSWER_LIMITS,
    },
    intervalMs: o["metrics-interval"] * 1000,
    sendEveryMs: o["metrics-send-every"] * 1000,
    maxEdges: o["metrics-max-edges"],
    settleMs: o["metrics-settle"] * 1000,
    ...(o["istio-cluster-id"] ? { istioClusterId: o["istio-cluster-id"] } : {}),
  };
}
