/**
 * The metrics queue's message: a report the API validated, re-encoded by the API (JSON, gzip, base64)
 * — never the agent's bytes — with the tenant and cluster it authenticated as. One message holds the
 * report's minutes, or some of them when the whole would not fit one message.
 */
import { gunzipSync, gzipSync } from "node:zlib";
import { type MetricsReport, rowSignals } from "@meshplane/core/base";
import type { DatedBucket } from "./objects/packed";

export interface MetricsMessage {
  v: 1;
  tenant: string;
  cluster: string;
  /** When the API took the report in (epoch ms). */
  receivedAt: number;
  report: MetricsReport;
}

/** SQS allows 256 KiB a message (body and attributes); stay under it with room for the attributes. */
export const MAX_MESSAGE_BYTES = 240 * 1024;

export const encodeMessage = (message: MetricsMessage): string => gzipSync(JSON.stringify(message)).toString("base64");

export const decodeMessage = (body: string): MetricsMessage => JSON.parse(gunzipSync(Buffer.from(body, "base64")).toString("utf8")) as MetricsMessage;

/**
 * The message bodies for one report: one, or — when it would be larger than MAX_MESSAGE_BYTES — the
 * report's minutes split in halves until each part fits (each minute is kept on its own, so a part is
 * a report of its own). A single minute always fits: its rows are bounded (docs/observability.md#limits).
 */
export function messageBodies(message: MetricsMessage): string[] {
  const body = encodeMessage(message);
  const minutes = message.report.minutes;
  if (body.length <= MAX_MESSAGE_BYTES || minutes.length <= 1) return [body];
  const half = Math.ceil(minutes.length / 2);
  return [minutes.slice(0, half), minutes.slice(half)].flatMap((part) => messageBodies({ ...message, report: { ...message.report, minutes: part } }));
}

/** The report's minutes as stored buckets of its cluster, dated by the report. */
export function reportBuckets(message: MetricsMessage): DatedBucket[] {
  const { report, cluster } = message;
  return report.minutes.map((m) => {
    const bucket: DatedBucket = {
      start: m.start,
      seconds: 60,
      cluster,
      istioClusterId: report.istioClusterId,
      generatedAt: report.generatedAt,
      rows: m.rows.map(({ edge, ...counts }) => ({ edge: report.edges[edge] as MetricsReport["edges"][number], signals: rowSignals(counts) })),
    };
    if (m.other) {
      const { edges, ...counts } = m.other;
      bucket.other = { edges, signals: rowSignals(counts) };
    }
    return bucket;
  });
}
