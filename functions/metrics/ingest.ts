/**
 * Taking an agent's metrics report in (`POST /v1/agent/metrics`, docs/pipeline.md#the-agent-protocol):
 * decompressed under a hard cap, parsed, validated against core's `metricsReport`, checked to be the
 * authenticated cluster's, then queued for the ingest function re-encoded. The cluster's metrics
 * health is written only when it changes (docs/observability.md#clusters).
 */
import { gunzipSync } from "node:zlib";
import { METRICS_LIMITS, ValidationError, metricsReport, parseOrThrow } from "@meshplane/core/base";
import { ForbiddenError, PayloadTooLargeError } from "../shared/errors";
import type { MetricsHealthStore, StoredMetricsHealth } from "../store/metrics-health";
import { messageBodies } from "./message";
import type { MetricsQueue } from "./queue";

export interface IngestDeps {
  queue: MetricsQueue;
  health: MetricsHealthStore;
  now: () => Date;
}

/** What the agent authenticated as. */
export interface ReportingAgent {
  tenantId: string;
  cluster: string;
}

/** The body as JSON text: gunzipped when `encoding` says gzip, stopping at METRICS_LIMITS.decodedBytes. */
function decode(body: Uint8Array, encoding: string | undefined): string {
  const coding = (encoding ?? "identity").trim().toLowerCase();
  if (coding === "identity" || coding === "") {
    if (body.byteLength > METRICS_LIMITS.decodedBytes) throw tooLarge();
    return Buffer.from(body).toString("utf8");
  }
  if (coding !== "gzip")
    throw new ValidationError("unsupported content encoding", [{ path: "headers.content-encoding", message: `must be gzip or identity, got ${coding}` }]);
  try {
    return gunzipSync(body, { maxOutputLength: METRICS_LIMITS.decodedBytes }).toString("utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) throw tooLarge();
    throw new ValidationError("malformed gzip", [{ path: "(body)", message: `malformed gzip: ${(error as Error).message}` }]);
  }
}

const tooLarge = () => new PayloadTooLargeError(`the report is larger than ${METRICS_LIMITS.decodedBytes} bytes decompressed`);

/** Arrays far over their limits are refused before the schema walks each element. */
function precheck(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  const { edges, minutes } = value as { edges?: unknown; minutes?: unknown };
  if (Array.isArray(edges) && edges.length > METRICS_LIMITS.edges)
    throw new ValidationError("invalid metrics report", [{ path: "edges", message: `must have at most ${METRICS_LIMITS.edges} edges` }]);
  if (Array.isArray(minutes) && minutes.length > METRICS_LIMITS.minutes)
    throw new ValidationError("invalid metrics report", [{ path: "minutes", message: `must have at most ${METRICS_LIMITS.minutes} minutes` }]);
}

/** The validated report, or the error the API answers with. */
function parseReport(agent: ReportingAgent, body: Uint8Array, encoding: string | undefined) {
  const text = decode(body, encoding);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError("malformed JSON", [{ path: "(body)", message: `malformed JSON: ${(error as Error).message}` }]);
  }
  precheck(value);
  const report = parseOrThrow(metricsReport, value, "metrics report");
  if (report.cluster !== agent.cluster) throw new ForbiddenError(`the report is for cluster ${report.cluster}; this agent is cluster ${agent.cluster}`);
  return report;
}

/** Why a report was refused, in words for the cluster's view; undefined for errors that are not the report's. */
function refusal(error: unknown): string | undefined {
  if (error instanceof ValidationError) {
    const first = error.errors[0];
    return first ? `${error.message}: ${first.path} ${first.message}` : error.message;
  }
  if (error instanceof ForbiddenError || error instanceof PayloadTooLargeError) return error.message;
  return undefined;
}

/** Last health written per cluster, per store (so one process serving many tables never mixes them). */
const written = new WeakMap<MetricsHealthStore, Map<string, string>>();

/** Writes the cluster's health when it differs from what was last written (one read per cluster per instance). */
async function recordHealth(deps: IngestDeps, agent: ReportingAgent, health: Omit<StoredMetricsHealth, "at">): Promise<void> {
  const memo = written.get(deps.health) ?? new Map<string, string>();
  written.set(deps.health, memo);
  const key = `${agent.tenantId}|${agent.cluster}`;
  const said = `${health.state}|${health.message ?? ""}`;
  if (!memo.has(key)) {
    const stored = await deps.health.get(agent.tenantId, agent.cluster);
    if (stored) memo.set(key, `${stored.state}|${stored.message ?? ""}`);
  }
  if (memo.get(key) === said) return;
  await deps.health.put(agent.tenantId, agent.cluster, { ...health, at: deps.now().toISOString() });
  if (memo.size >= 100_000) memo.clear();
  memo.set(key, said);
}

/**
 * Validates the agent's report and queues it (one message, or a few when the whole would not fit one).
 * Throws ValidationError (400, naming the field), PayloadTooLargeError (413, naming the cap) or
 * ForbiddenError (403: another cluster's report); each is recorded as the cluster's `refused` health.
 */
export async function acceptMetricsReport(deps: IngestDeps, agent: ReportingAgent, body: Uint8Array, encoding: string | undefined): Promise<void> {
  let report: ReturnType<typeof parseReport>;
  try {
    report = parseReport(agent, body, encoding);
  } catch (error) {
    const why = refusal(error);
    if (why !== undefined) await recordHealth(deps, agent, { state: "refused", message: why.slice(0, METRICS_LIMITS.message) });
    throw error;
  }
  const message = { v: 1 as const, tenant: agent.tenantId, cluster: agent.cluster, receivedAt: deps.now().getTime(), report };
  for (const part of messageBodies(message)) await deps.queue.send(part, { tenant: agent.tenantId, cluster: agent.cluster });
  await recordHealth(deps, agent, { state: report.health.state, ...(report.health.message ? { message: report.health.message } : {}) });
}
