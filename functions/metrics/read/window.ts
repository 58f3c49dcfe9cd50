/**
 * The time a metrics read covers (docs/api.md#golden-signals): `window` back from now, in points of
 * `step`. Minute buckets are kept at least 48 hours, hourly ones 30 days
 * (docs/observability.md#where-it-is-kept): a window reaching further back than 48 hours can only be
 * cut in whole hours. Every bound is a 400 naming its query parameter.
 */
import { MINUTE_S, ValidationError } from "@meshplane/core/base";

export const HOUR_S = 3600;
/** How long minute buckets are surely kept; beyond it, only hourly ones. */
export const MINUTES_KEPT_S = 48 * HOUR_S;
/** The longest window a destination's series reads. */
export const MAX_SERIES_WINDOW_S = 30 * 86_400;
/** The longest window of the graph and of the impact list. */
export const MAX_GRAPH_WINDOW_S = 24 * HOUR_S;
/** The most points a series has. */
export const MAX_POINTS = 1440;

const UNIT_S = { s: 1, m: 60, h: HOUR_S, d: 86_400 } as const;

/** A duration as the API writes it: a whole number of seconds, minutes, hours or days (`90s`, `5m`, `1h`, `7d`). */
export const DURATION = /^([1-9][0-9]{0,6})([smhd])$/;

/** Seconds of a duration `DURATION` matched; a query schema checks the syntax first. */
export function durationSeconds(text: string): number {
  const m = DURATION.exec(text);
  if (!m) throw new TypeError(`not a duration: ${text}`);
  return Number(m[1]) * UNIT_S[m[2] as keyof typeof UNIT_S];
}

const refuse = (parameter: string, message: string) => new ValidationError(`invalid ${parameter}`, [{ path: `query.${parameter}`, message }]);

/** A window of whole buckets: [from, to) in epoch seconds, cut in points of `step` seconds. */
export interface TimeRange {
  from: number;
  to: number;
  step: number;
}

/**
 * The window of the last `window` seconds before `now`, ending at the start of the current minute
 * (or hour, for hourly steps), bounded by `max`. For a series, `step` (seconds, or undefined for the
 * smallest that fits MAX_POINTS) must be at least a minute, a whole number of the resolution kept
 * that far back, divide the window, and make at most MAX_POINTS points.
 */
export function timeRange(now: Date, window: number, max: number, step?: number): TimeRange {
  if (window > max) throw refuse("window", `must be at most ${max / 86_400 >= 1 ? `${max / 86_400}d` : `${max / HOUR_S}h`}`);
  if (window < MINUTE_S || window % MINUTE_S !== 0) throw refuse("window", "must be a whole number of minutes");
  const resolution = window > MINUTES_KEPT_S ? HOUR_S : MINUTE_S;
  const chosen = step ?? Math.max(resolution, Math.ceil(window / MAX_POINTS / resolution) * resolution);
  if (step !== undefined) {
    if (step < MINUTE_S) throw refuse("step", "must be at least 1m");
    if (step % resolution !== 0)
      throw refuse("step", `must be a whole number of hours for a window longer than 48h (only hourly roll-ups are kept that far back)`);
    if (window % step !== 0) throw refuse("step", "must divide the window");
    if (window / step > MAX_POINTS) throw refuse("step", `gives ${window / step} points; at most ${MAX_POINTS}: make it longer`);
  }
  const nowS = Math.floor(now.getTime() / 1000);
  const align = chosen % HOUR_S === 0 ? HOUR_S : MINUTE_S;
  const to = nowS - (nowS % align);
  // A chosen step that does not divide the window widens it to whole steps.
  const points = Math.ceil(window / chosen);
  return { from: to - points * chosen, to, step: chosen };
}
