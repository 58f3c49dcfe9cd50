/**
 * How the console writes golden signals and colours them (docs/console.md#the-graph): one scale for
 * the error ratio, colour-blind safe (blue, purple, orange, vermillion of the Okabe–Ito palette, darker
 * in the light theme so every colour keeps 3:1 against the page), always with words or figures beside
 * it; edge widths by request rate on a log scale. Pure: the graph, its table and the charts share it.
 */

/** A band of the error-ratio scale; `idle` is an edge with no HTTP or gRPC request (TCP only). */
export type ErrorBand = "ok" | "low" | "warn" | "bad" | "idle";

export interface BandInfo {
  band: ErrorBand;
  /** What the legend says. */
  label: string;
  /** Stroke colours, light theme then dark; styles.css declares them as `--err-<band>`. */
  light: string;
  dark: string;
}

/** The scale, in the legend's order. */
export const ERROR_SCALE: readonly BandInfo[] = [
  { band: "ok", label: "no failed request", light: "#0068a6", dark: "#56b4e9" },
  { band: "low", label: "under 1% failed", light: "#8b3f9a", dark: "#d99ad6" },
  { band: "warn", label: "1% to 5% failed", light: "#a85400", dark: "#e69f00" },
  { band: "bad", label: "5% or more failed", light: "#c0260a", dark: "#ff6e4a" },
  { band: "idle", label: "no request (TCP only)", light: "#6e7781", dark: "#8b949e" },
];

/** The band of an error ratio (0..1); undefined (no request) is `idle`. */
export function errorBand(ratio: number | undefined): ErrorBand {
  if (ratio === undefined) return "idle";
  if (ratio <= 0) return "ok";
  if (ratio < 0.01) return "low";
  if (ratio < 0.05) return "warn";
  return "bad";
}

/** An edge's stroke width in pixels for its requests per second: 1 at none, about 4 at 100/s, at most 8. */
export function edgeWidth(rps: number): number {
  const w = 1 + 1.5 * Math.log10(1 + Math.max(0, rps));
  return Math.min(8, Math.round(w * 10) / 10);
}

/** Requests per second as a reader takes it in: `0/s`, `<0.01/s`, `0.42/s`, `12.3/s`, `1.2k/s`. */
export function formatRate(rps: number): string {
  if (rps <= 0) return "0/s";
  if (rps < 0.01) return "<0.01/s";
  if (rps < 10) return `${rps.toFixed(2)}/s`;
  if (rps < 1000) return `${rps.toFixed(1)}/s`;
  return `${(rps / 1000).toFixed(1)}k/s`;
}

/** A ratio (0..1) as a percentage; `—` when there is nothing to compute it from. */
export function formatRatio(ratio: number | undefined): string {
  if (ratio === undefined) return "—";
  if (ratio <= 0) return "0%";
  if (ratio < 0.001) return "<0.1%";
  return `${(ratio * 100).toFixed(1)}%`;
}

/** A latency: `4.2 ms`, `120 ms`, `1.5 s`; `—` when no request was timed. */
export function formatMs(ms: number | undefined): string {
  if (ms === undefined) return "—";
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** The relative luminance of a `#rrggbb` colour, as WCAG defines it. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG's contrast ratio of two `#rrggbb` colours (1..21), to hold the scale to 3:1 for graphics. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
