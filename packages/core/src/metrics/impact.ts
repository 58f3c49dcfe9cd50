import { MINUTE_S } from "./report";
import { type Signals, errorRatio, latencyQuantileMs, sumSignals } from "./signals";
import type { ChangeImpact, ChangeMarker } from "./views";

/**
 * When a change counts as having hurt a destination (docs/observability.md#change-impact): the
 * minutes after it are compared with the minutes before it, each window `windowMinutes` long (the
 * window before stops at the previous change, the window after at the next one), and the change is
 * named when, with at least `minRequests` requests in both windows,
 * - the error ratio rose by at least `errorRatioRise` (absolute) and at least doubled, or
 * - p99 rose by at least `p99RiseMs` and by at least `p99Factor` times.
 */
export const IMPACT_RULE = { windowMinutes: 15, minRequests: 20, errorRatioRise: 0.05, p99RiseMs: 50, p99Factor: 1.5 } as const;

/** One destination's minutes: start (epoch seconds) → its counts. */
export type ImpactWindowSignals = ReadonlyMap<number, Readonly<Signals>>;

const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;

/** The start (epoch seconds) of the minute an RFC 3339 time falls in. */
function minuteOf(at: string): number {
  const s = Math.floor(Date.parse(at) / 1000);
  return s - (s % MINUTE_S);
}

function windowSum(minutes: ImpactWindowSignals, from: number, to: number): Signals {
  const inside: Signals[] = [];
  for (const [start, s] of minutes) if (start >= from && start < to) inside.push(s);
  return sumSignals(inside);
}

/**
 * The changes among `markers` (any order) after which `destination`'s signals rose past IMPACT_RULE,
 * judged on `minutes`; a change with too little traffic on either side is not judged.
 */
export function findImpact(destination: string, minutes: ImpactWindowSignals, markers: readonly ChangeMarker[]): ChangeImpact[] {
  const sorted = [...markers].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const window = IMPACT_RULE.windowMinutes * MINUTE_S;
  const impacts: ChangeImpact[] = [];
  const changeMinutes = [...new Set(sorted.map((m) => minuteOf(m.at)))];
  sorted.forEach((marker) => {
    // The minute the change landed in is the first minute after it: a burst starting then is its.
    const changeMinute = minuteOf(marker.at);
    // Changes of one minute (a policy reaching two clusters at once) share their windows: the
    // neighbours are the changes of the minutes before and after.
    const previousMinute = changeMinutes.findLast((m) => m < changeMinute);
    const nextMinute = changeMinutes.find((m) => m > changeMinute);
    const previous = previousMinute === undefined ? -Infinity : previousMinute + MINUTE_S;
    const next = nextMinute ?? Infinity;
    const before = windowSum(minutes, Math.max(changeMinute - window, previous), changeMinute);
    const after = windowSum(minutes, changeMinute, Math.min(changeMinute + window, next));
    if (before.requests < IMPACT_RULE.minRequests || after.requests < IMPACT_RULE.minRequests) return;
    const rb = errorRatio(before) ?? 0;
    const ra = errorRatio(after) ?? 0;
    const what = `${marker.kind} ${marker.name} version ${marker.version} on ${marker.cluster}`;
    if (ra - rb >= IMPACT_RULE.errorRatioRise && ra >= 2 * rb) {
      impacts.push({
        destination,
        change: marker,
        signal: "errorRatio",
        before: rb,
        after: ra,
        message: `error ratio of ${destination} rose from ${pct(rb)} to ${pct(ra)} after ${what}`,
      });
    }
    const pb = latencyQuantileMs(before.latency, 0.99);
    const pa = latencyQuantileMs(after.latency, 0.99);
    if (pb !== undefined && pa !== undefined && pa - pb >= IMPACT_RULE.p99RiseMs && pa >= IMPACT_RULE.p99Factor * pb) {
      impacts.push({
        destination,
        change: marker,
        signal: "p99Ms",
        before: pb,
        after: pa,
        message: `p99 of ${destination} rose from ${ms(pb)} to ${ms(pa)} after ${what}`,
      });
    }
  });
  return impacts;
}
