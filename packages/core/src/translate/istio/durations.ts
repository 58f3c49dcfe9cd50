import { parseDuration } from "../../api/index";
import { TranslateError } from "../errors";

/**
 * A duration as protobuf JSON writes it — seconds with up to nine decimals and an `s` ("90s",
 * "0.25s") — which every Istio release parses. Normalising also makes "1m" and "60s" equal, so two
 * policies saying the same thing in different words do not conflict. Input was validated by the
 * API schema; an unparseable one here is a bug.
 */
export function istioDuration(text: string): string {
  const ms = parseDuration(text);
  if (ms === undefined) throw new TranslateError(`unvalidated duration ${JSON.stringify(text)}`);
  const nanos = Math.round(ms * 1_000_000);
  const seconds = Math.floor(nanos / 1_000_000_000);
  const fraction = nanos % 1_000_000_000;
  if (fraction === 0) return `${seconds}s`;
  return `${seconds}.${String(fraction).padStart(9, "0").replace(/0+$/, "")}s`;
}
