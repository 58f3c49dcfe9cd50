/**
 * The geometry of a destination's charts (docs/console.md#a-destinations-signals): scales, paths with
 * gaps where a point has no value, round ticks and where each change marker falls. Pure; the page
 * draws it as plain SVG.
 */

export interface ChartSeries {
  name: string;
  /** One value per time; undefined leaves a gap (no request, nothing timed). */
  values: readonly (number | undefined)[];
  dashed?: boolean;
}

export interface ChartInput {
  /** The window, epoch ms. */
  from: number;
  to: number;
  /** Each point's time, epoch ms. */
  times: readonly number[];
  series: readonly ChartSeries[];
  /** Change markers' times, epoch ms. */
  markers: readonly number[];
  /** The top of the y axis is at least this (a flat zero line still has a scale). */
  minTop: number;
  formatY: (v: number) => string;
  formatTime: (ms: number) => string;
}

export interface ChartModel {
  width: number;
  height: number;
  plot: { x: number; y: number; w: number; h: number };
  paths: { name: string; d: string; dashed: boolean }[];
  yTicks: { y: number; label: string }[];
  xTicks: { x: number; label: string }[];
  /** Each marker's x, in the order given; a marker outside the window is left out (undefined). */
  markers: (number | undefined)[];
}

export const CHART_W = 720;
export const CHART_H = 170;
const M = { left: 64, right: 24, top: 10, bottom: 26 };

/** The smallest 1, 2 or 5 times a power of ten at or above `v` (and at least `min`). */
export function niceTop(v: number, min: number): number {
  const top = Math.max(v, min);
  const p = 10 ** Math.floor(Math.log10(top));
  for (const m of [1, 2, 5, 10]) if (m * p >= top * (1 - 1e-9)) return m * p;
  return 10 * p;
}

const TIME_STEPS_MS = [1, 5, 15, 30, 60, 180, 360, 720, 1440, 2880, 10080].map((m) => m * 60_000);

/** Tick times inside [from, to], on round multiples of a step that gives at most `most` ticks. */
export function timeTicks(from: number, to: number, most = 6): number[] {
  const step = TIME_STEPS_MS.find((s) => (to - from) / s <= most) ?? (TIME_STEPS_MS[TIME_STEPS_MS.length - 1] as number);
  const ticks: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) ticks.push(t);
  return ticks;
}

/** Scales and paths of one chart. */
export function chartModel(input: ChartInput): ChartModel {
  const plot = { x: M.left, y: M.top, w: CHART_W - M.left - M.right, h: CHART_H - M.top - M.bottom };
  const span = Math.max(1, input.to - input.from);
  const xOf = (t: number) => Math.round((plot.x + ((t - input.from) / span) * plot.w) * 10) / 10;
  let highest = 0;
  for (const s of input.series) for (const v of s.values) if (v !== undefined && v > highest) highest = v;
  const top = niceTop(highest, input.minTop);
  const yOf = (v: number) => Math.round((plot.y + plot.h - (v / top) * plot.h) * 10) / 10;
  const paths = input.series.map((s) => {
    let d = "";
    let open = false;
    s.values.forEach((v, i) => {
      const t = input.times[i];
      if (v === undefined || t === undefined) {
        open = false;
        return;
      }
      // A point with no neighbour is drawn as a dot (a zero-length segment with round caps).
      d += open ? `L${xOf(t)} ${yOf(v)}` : `${d ? " " : ""}M${xOf(t)} ${yOf(v)}h0`;
      open = true;
    });
    return { name: s.name, d, dashed: s.dashed ?? false };
  });
  const yTicks = [0, top / 2, top].map((v) => ({ y: yOf(v), label: input.formatY(v) }));
  const xTicks = timeTicks(input.from, input.to).map((t) => ({ x: xOf(t), label: input.formatTime(t) }));
  const markers = input.markers.map((t) => (t >= input.from && t <= input.to ? xOf(t) : undefined));
  return { width: CHART_W, height: CHART_H, plot, paths, yTicks, xTicks, markers };
}
