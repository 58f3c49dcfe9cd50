import type { MetricsRow } from "./report";
import { type Signals, errorRatio, latencyQuantileMs } from "./signals";
import type { SignalSummary } from "./views";

/** A report row's counts as Signals (absent counters are 0). */
export function rowSignals(row: Omit<MetricsRow, "edge">): Signals {
  return {
    requests: row.requests ?? 0,
    non2xx: row.non2xx ?? 0,
    errors5xx: row.errors5xx ?? 0,
    grpcErrors: row.grpcErrors ?? 0,
    failures: row.failures ?? 0,
    bytesIn: row.bytesIn ?? 0,
    bytesOut: row.bytesOut ?? 0,
    tcpOpened: row.tcpOpened ?? 0,
    tcpClosed: row.tcpClosed ?? 0,
    latency: row.latency ? [...row.latency] : [],
  };
}

/** What the API shows of counts gathered over `seconds`: rates, the error ratio, p50/p90/p99. */
export function summarize(s: Readonly<Signals>, seconds: number): SignalSummary {
  const summary: SignalSummary = {
    requests: s.requests,
    rps: seconds > 0 ? s.requests / seconds : 0,
    non2xx: s.non2xx,
    errors5xx: s.errors5xx,
    grpcErrors: s.grpcErrors,
    bytesIn: s.bytesIn,
    bytesOut: s.bytesOut,
    tcpOpened: s.tcpOpened,
    tcpClosed: s.tcpClosed,
  };
  const ratio = errorRatio(s);
  if (ratio !== undefined) summary.errorRatio = ratio;
  const p50 = latencyQuantileMs(s.latency, 0.5);
  if (p50 !== undefined) {
    summary.p50Ms = p50;
    summary.p90Ms = latencyQuantileMs(s.latency, 0.9);
    summary.p99Ms = latencyQuantileMs(s.latency, 0.99);
  }
  return summary;
}
