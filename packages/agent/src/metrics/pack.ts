import { gzipSync } from "node:zlib";
import { METRICS_LIMITS } from "@meshplane/core";
import type { MinuteCounts } from "./minute";
import { type ReportInput, buildReport } from "./report";

/** One request's worth: the gzipped body and the minutes it carries. */
export interface PackedReport {
  body: Buffer;
  /** Bytes of the JSON before gzip. */
  jsonBytes: number;
  minutes: readonly MinuteCounts[];
}

/** How many times over the limits a report is (≤ 1: it fits). */
const overBy = (json: number, gzipped: number) => Math.max(json / METRICS_LIMITS.decodedBytes, gzipped / METRICS_LIMITS.bodyBytes);

/**
 * The minutes as gzipped reports, oldest first, each within the control plane's limits
 * (METRICS_LIMITS: bodyBytes as sent, decodedBytes unpacked): a report too large is split into as
 * many parts of fewer minutes as its size asks (a quarter more, so a part rarely needs splitting
 * again), and a single minute too large names half as many edges (the rest go to `other`). No
 * minutes: one report that carries only the health.
 */
export function packReports(input: Omit<ReportInput, "minutes">, minutes: readonly MinuteCounts[]): PackedReport[] {
  const sorted = [...minutes].sort((a, b) => a.start - b.start);
  const pack = (part: readonly MinuteCounts[], maxEdges: number): PackedReport[] => {
    const json = Buffer.from(JSON.stringify(buildReport({ ...input, maxEdges, minutes: part })));
    const body = gzipSync(json);
    const over = overBy(json.length, body.length);
    if (over <= 1) return [{ body, jsonBytes: json.length, minutes: part }];
    if (part.length > 1) {
      const parts = Math.min(part.length, Math.ceil(over * 1.25));
      const size = Math.ceil(part.length / parts);
      const out: PackedReport[] = [];
      for (let i = 0; i < part.length; i += size) out.push(...pack(part.slice(i, i + size), maxEdges));
      return out;
    }
    if (maxEdges <= 1) throw new Error("a metrics report of one minute and one edge exceeds the control plane's limits");
    return pack(part, Math.floor(maxEdges / 2));
  };
  return pack(sorted, input.maxEdges);
}
