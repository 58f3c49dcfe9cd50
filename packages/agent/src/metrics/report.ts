import {
  COUNTER_FIELDS,
  METRICS_LIMITS,
  type MetricsEdge,
  type MetricsMinute,
  type MetricsReport,
  type MetricsRow,
  type MetricsSourceHealth,
  type Signals,
  addSignals,
  edgeDestination,
  edgeSource,
  emptySignals,
  metricsEdge,
  metricsReport,
} from "@meshplane/core";
import type { MinuteCounts } from "./minute";

/**
 * The report the agent sends (docs/observability.md#the-report): the minutes read, their edges
 * ranked by traffic over all of them — requests, then bytes — the first `maxEdges` named, every other
 * one summed into each minute's `other`, as is every edge whose names core refuses (a label value
 * that is no Kubernetes name): those are counted and the health message says so.
 */

export interface ReportInput {
  cluster: string;
  istioClusterId: string;
  /** How reading Prometheus went (the latest read). */
  health: MetricsSourceHealth;
  minutes: readonly MinuteCounts[];
  /** At most METRICS_LIMITS.edges. */
  maxEdges: number;
  now: number;
}

interface Ranked {
  key: string;
  edge: MetricsEdge;
  requests: number;
  bytes: number;
}

/** Whether core keeps the edge's names as they are. */
function keepable(edge: MetricsEdge): boolean {
  return edgeSource.safeParse(edge.source).success && edgeDestination.safeParse(edge.destination).success && metricsEdge.safeParse(edge).success;
}

/** A report row's counts: the counters that are not 0, and the histogram when a request was timed. */
function counts(s: Readonly<Signals>): Omit<MetricsRow, "edge"> {
  const row: Omit<MetricsRow, "edge"> = {};
  for (const field of COUNTER_FIELDS) if (s[field] > 0) row[field] = s[field];
  if (s.latency.some((c) => c > 0)) row.latency = [...s.latency];
  return row;
}

/** Every edge of the minutes, keepable ones ranked first by requests, then bytes, then key (so a tie always breaks alike). */
function rank(minutes: readonly MinuteCounts[]): { ranked: Ranked[]; refused: Set<string> } {
  const all = new Map<string, Ranked>();
  for (const minute of minutes) {
    for (const [key, { edge, signals }] of minute.edges) {
      const r = all.get(key) ?? { key, edge, requests: 0, bytes: 0 };
      r.requests += signals.requests;
      r.bytes += signals.bytesIn + signals.bytesOut;
      all.set(key, r);
    }
  }
  const refused = new Set<string>();
  const ranked: Ranked[] = [];
  for (const r of all.values()) {
    if (keepable(r.edge)) ranked.push(r);
    else refused.add(r.key);
  }
  ranked.sort((a, b) => b.requests - a.requests || b.bytes - a.bytes || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { ranked, refused };
}

function healthOf(input: ReportInput, refused: number, badValues: number): MetricsSourceHealth {
  const notes: string[] = [];
  if (refused > 0) notes.push(`${refused} edge(s) whose Istio labels are no Kubernetes names were summed into other`);
  if (badValues > 0) notes.push(`${badValues} value(s) from Prometheus were not counts and were left out`);
  if (notes.length === 0) return input.health;
  const message = [input.health.message, ...notes].filter(Boolean).join("; ");
  return { state: input.health.state, message: message.slice(0, METRICS_LIMITS.message) };
}

/**
 * The report of `input.minutes`, checked against core's `metricsReport`. Throws when core refuses it
 * (a bug here, never the cluster's data: names were checked, counts are whole and not negative).
 */
export function buildReport(input: ReportInput): MetricsReport {
  const { ranked, refused } = rank(input.minutes);
  const named = ranked.slice(0, Math.min(input.maxEdges, METRICS_LIMITS.edges));
  const index = new Map(named.map((r, i) => [r.key, i]));
  const minutes: MetricsMinute[] = [...input.minutes]
    .sort((a, b) => a.start - b.start)
    .map((m) => {
      const rows: MetricsRow[] = [];
      const other = emptySignals();
      let folded = 0;
      for (const [key, { signals }] of m.edges) {
        const i = index.get(key);
        if (i !== undefined) rows.push({ edge: i, ...counts(signals) });
        else {
          addSignals(other, signals);
          folded++;
        }
      }
      rows.sort((a, b) => a.edge - b.edge);
      return { start: m.start, rows, ...(folded > 0 ? { other: { edges: folded, ...counts(other) } } : {}) };
    });
  const badValues = input.minutes.reduce((n, m) => n + m.badValues, 0);
  const report = {
    cluster: input.cluster,
    generatedAt: input.now,
    istioClusterId: input.istioClusterId,
    health: healthOf(input, refused.size, badValues),
    edges: named.map((r) => r.edge),
    minutes,
  };
  const parsed = metricsReport.safeParse(report);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`the metrics report does not pass core's schema (${issue?.path.join(".")}: ${issue?.message})`);
  }
  return parsed.data;
}
