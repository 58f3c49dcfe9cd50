/**
 * How the CLI writes golden signals (docs/observability.md#the-signals): rates, error ratios,
 * latencies and bytes in a few characters, a per-minute sparkline, and the windows `top` and
 * `describe destination` take. Pure: no I/O.
 */
import type { SignalSummary } from "@meshplane/core";
import { UsageError } from "../config";

const UNIT_S = { s: 1, m: 60, h: 3600, d: 86400 } as const;

/**
 * The seconds of a window as typed (`30s`, `5m`, `1h`, `2d`); a UsageError (exit 2, nothing sent) for
 * anything else. Its bounds are the API's to say (docs/api.md).
 */
export function windowSeconds(window: string): number {
  const m = /^([1-9][0-9]{0,6})([smhd])$/.exec(window);
  if (m === null) throw new UsageError(`--window ${JSON.stringify(window)}: a number and a unit, s, m, h or d (5m, 1h, 2d)`);
  return Number(m[1]) * UNIT_S[m[2] as keyof typeof UNIT_S];
}

/** A duration in the API's form: whole days, hours or minutes when it is one, else seconds. */
export function durationText(seconds: number): string {
  for (const [unit, size] of [
    ["d", 86400],
    ["h", 3600],
    ["m", 60],
  ] as const)
    if (seconds % size === 0) return `${seconds / size}${unit}`;
  return `${seconds}s`;
}

/** Points a series is asked for at most: one sparkline fits a terminal line. */
export const SERIES_POINTS = 60;

/**
 * The step of a window's series: the smallest that divides the window into at most SERIES_POINTS
 * points, in whole minutes, and whole hours beyond 48 h, where the store keeps hourly roll-ups only
 * (docs/observability.md#where-it-is-kept). A window that no such step divides (the API refuses it)
 * gets the smallest step with few enough points, for the API to name.
 */
export function stepSeconds(windowS: number): number {
  const resolution = windowS > 48 * 3600 ? 3600 : 60;
  const least = Math.max(1, Math.ceil(windowS / SERIES_POINTS / resolution));
  for (let k = least; k * resolution <= windowS; k++) if (windowS % (k * resolution) === 0) return k * resolution;
  return least * resolution;
}

/** Requests per second: three significant figures at most, `0` for none. */
export function rateText(rps: number): string {
  if (rps === 0) return "0";
  if (rps >= 100) return rps.toFixed(0);
  if (rps >= 10) return rps.toFixed(1);
  if (rps >= 0.01) return rps.toFixed(2);
  return "<0.01";
}

/** An error ratio as a percentage; `-` when there was no request to divide by. */
export function ratioText(ratio: number | undefined): string {
  if (ratio === undefined) return "-";
  if (ratio === 0) return "0%";
  if (ratio < 0.001) return "<0.1%";
  return `${(ratio * 100).toFixed(1)}%`;
}

/** A latency; `-` when no request was timed. */
export function msText(ms: number | undefined): string {
  if (ms === undefined) return "-";
  if (ms < 10) return `${ms.toFixed(1)}ms`;
  if (ms < 1000) return `${ms.toFixed(0)}ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
}

/** Bytes in binary units. */
export function bytesText(bytes: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v}B` : `${v.toFixed(v < 10 ? 1 : 0)}${units[i]}`;
}

const BARS = "▁▂▃▄▅▆▇█";

/**
 * One character per value, from ▁ (0) to █ (the largest value); a value that could not be computed
 * (no request in that minute) is a space, so a gap is never drawn as zero.
 */
export function sparkline(values: readonly (number | undefined)[]): string {
  const max = Math.max(0, ...values.filter((v): v is number => v !== undefined));
  return values
    .map((v) => {
      if (v === undefined) return " ";
      if (max === 0) return BARS[0];
      return BARS[Math.min(BARS.length - 1, Math.round((v / max) * (BARS.length - 1)))];
    })
    .join("");
}

/** A summary of nothing: every count and rate 0, nothing to compute a ratio or quantile from. */
export function emptySummary(): SignalSummary {
  return { requests: 0, rps: 0, non2xx: 0, errors5xx: 0, grpcErrors: 0, bytesIn: 0, bytesOut: 0, tcpOpened: 0, tcpClosed: 0 };
}

/**
 * The sum of summaries (many callers of one destination, many clusters of one service): counts and
 * rates add, the error ratio is recomputed from them; quantiles cannot be added and are left out.
 */
export function sumSummaries(all: readonly SignalSummary[]): SignalSummary {
  const total = emptySummary();
  let failed = 0;
  for (const s of all) {
    for (const k of ["requests", "rps", "non2xx", "errors5xx", "grpcErrors", "bytesIn", "bytesOut", "tcpOpened", "tcpClosed"] as const) total[k] += s[k];
    failed += (s.errorRatio ?? 0) * s.requests;
  }
  if (total.requests > 0) total.errorRatio = Math.round(failed) / total.requests;
  return total;
}
