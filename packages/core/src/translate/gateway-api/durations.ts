import { parseDuration } from "../../api/index";
import { TranslateError } from "../errors";

const UNITS: readonly [string, number][] = [
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
  ["ms", 1],
];

/**
 * A duration as Gateway API writes it (`^([0-9]{1,5}(h|m|s|ms)){1,4}$`: "90s", "1m30s", "250ms"),
 * normalised so equal durations in other words do not conflict (zero is "0s"); undefined when its hours need more
 * than five digits. The API schema validated the input; an unparseable one here is a bug.
 */
export function gatewayDuration(text: string): string | undefined {
  const ms = parseDuration(text);
  if (ms === undefined) throw new TranslateError(`unvalidated duration ${JSON.stringify(text)}`);
  let left = Math.round(ms);
  let out = "";
  for (const [unit, size] of UNITS) {
    const n = Math.floor(left / size);
    left -= n * size;
    if (n > 0) out += `${n}${unit}`;
  }
  // Zero is "0s" (for requestTimeout: no timeout), as Gateway API's pattern needs a number and a unit.
  return ms >= 100_000 * 3_600_000 ? undefined : out || "0s";
}
