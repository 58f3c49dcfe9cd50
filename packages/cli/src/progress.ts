/**
 * Progress of something the CLI waits for, as lines keyed by what they are about. On a terminal
 * (and not under CI) the lines are redrawn in place; elsewhere a line is printed each time its text
 * changes, so a CI log reads as a history.
 */
import type { Streams } from "./output";

export interface ProgressLine {
  key: string;
  text: string;
  /** Shown only when redrawn in place (e.g. the time so far), so a log gets a line per real change. */
  detail?: string;
}

export interface Progress {
  show(lines: ProgressLine[]): void;
  /** Leaves the last lines on screen and stops redrawing. */
  done(): void;
}

export async function progress(streams: Streams): Promise<Progress> {
  const live =
    streams.err.isTTY === true && streams.env.CI === undefined ? (await import("log-update")).createLogUpdate(streams.err as NodeJS.WriteStream) : undefined;
  const printed = new Map<string, string>();
  let ended = false;
  return {
    show(lines) {
      if (ended) return;
      if (live) {
        live(lines.map((l) => (l.detail ? `${l.text} ${l.detail}` : l.text)).join("\n"));
        return;
      }
      for (const { key, text } of lines) {
        if (printed.get(key) === text) continue;
        printed.set(key, text);
        streams.err.write(`${text}\n`);
      }
    },
    done() {
      if (ended) return;
      ended = true;
      live?.done();
    },
  };
}
