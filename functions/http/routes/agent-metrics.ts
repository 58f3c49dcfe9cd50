import { METRICS_LIMITS } from "@meshplane/core/base";
import { z } from "zod";
import { type IngestDeps, acceptMetricsReport } from "../../metrics/index";
import { problem } from "../problem";
import { type Route, route } from "../route";

/** The agent's metrics route: a report as sent is at most this large (docs/observability.md#limits). */
export const METRICS_BODY_BYTES = METRICS_LIMITS.bodyBytes;

/**
 * `POST /v1/agent/metrics` (docs/pipeline.md#the-agent-protocol): the agent's golden signals, gzip or
 * plain JSON (core's `metricsReport`); the body is read here as bytes, since it may be gzip, and
 * decompressed, validated and queued by functions/metrics/ingest.ts. Without a metrics store (`deps`
 * undefined) the control plane keeps no metrics and answers 503.
 */
export function agentMetricsRoutes(deps: IngestDeps | undefined): Route[] {
  return [
    route({
      method: "post",
      path: "/v1/agent/metrics",
      tag: "agent",
      access: "agent",
      maxBodyBytes: METRICS_BODY_BYTES,
      summary: `Report the cluster's golden signals in minute buckets (JSON, Content-Encoding gzip or none; at most ${METRICS_LIMITS.bodyBytes} bytes as sent, ${METRICS_LIMITS.decodedBytes} decompressed); queued, kept as roll-ups`,
      headers: { "Content-Encoding": { description: "gzip, or none", pattern: /^(gzip|identity)?$/i } },
      responses: {
        202: { description: "queued", schema: z.object({ accepted: z.literal(true) }) },
        400: { description: "the report is invalid (the field is named)" },
        403: { description: "the report is for another cluster" },
        413: { description: "the report is too large, as sent or decompressed" },
        503: { description: "this control plane keeps no metrics" },
      },
      handler: async (c) => {
        if (deps === undefined) return problem(c, 503 as never, "this control plane keeps no metrics");
        const { tenantId, cluster } = c.get("agent");
        const body = new Uint8Array(await c.req.arrayBuffer());
        await acceptMetricsReport(deps, { tenantId, cluster }, body, c.req.header("content-encoding"));
        return c.json({ accepted: true as const }, 202);
      },
    }),
  ];
}
