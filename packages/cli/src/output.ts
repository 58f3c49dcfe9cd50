/**
 * What the CLI prints: colour only on a terminal (and never with NO_COLOR), tables cut to the
 * terminal's width, YAML/JSON for scripts, and errors as one readable line per bad field.
 */
import Table from "cli-table3";
import pc from "picocolors";
import { stringify } from "yaml";
import { ApiError } from "./client";
import { UsageError } from "./config";

export const OUTPUTS = ["table", "wide", "yaml", "json", "name"] as const;
export type Output = (typeof OUTPUTS)[number];

export interface Streams {
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  err: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** Colours for a stream: only on a TTY, never with NO_COLOR set (any value), forced by FORCE_COLOR. */
export function colours(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv) {
  const on = env.NO_COLOR === undefined && (env.FORCE_COLOR !== undefined ? env.FORCE_COLOR !== "0" : stream.isTTY === true);
  return pc.createColors(on);
}

export function table(streams: Streams, head: string[], rows: string[][]): string {
  const width = streams.out.columns ?? 160;
  // Shares the width out: each column gets what it needs up to an equal share of what is left.
  const needs = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)) + 2);
  const total = needs.reduce((s, n) => s + n, 0);
  const colWidths = total <= width ? needs : needs.map((n) => Math.max(6, Math.floor((n / total) * width)));
  const t = new Table({
    head,
    colWidths,
    wordWrap: false,
    truncate: "…",
    style: { head: colours(streams.out, streams.env).isColorSupported ? ["bold"] : [], border: [], compact: true, "padding-left": 0, "padding-right": 2 },
    chars: {
      top: "",
      "top-mid": "",
      "top-left": "",
      "top-right": "",
      bottom: "",
      "bottom-mid": "",
      "bottom-left": "",
      "bottom-right": "",
      left: "",
      "left-mid": "",
      mid: "",
      "mid-mid": "",
      right: "",
      "right-mid": "",
      middle: "",
    },
  });
  t.push(...rows);
  return `${t
    .toString()
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n")}\n`;
}

/** Characters a terminal acts on rather than shows: C0 and C1 controls, DEL, bidirectional and zero-width marks. */
// oxlint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/**
 * `value` safe to print on a terminal: each control character, escape sequence introducer, bidirectional
 * override and zero-width mark written as `\xNN` or `\u{NNNN}`, so a name from a cluster (a label value
 * Prometheus reported, say) can neither move the cursor nor recolour or hide what follows it. Text
 * without such characters comes back unchanged.
 */
export function printable(value: string): string {
  return value.replace(UNPRINTABLE, (ch) => {
    const code = ch.codePointAt(0) as number;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u{${code.toString(16)}}`;
  });
}

export function formatData(value: unknown, output: "yaml" | "json"): string {
  return output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value, { lineWidth: 0 });
}

/** Prints an error as the user should read it and returns the exit code. */
export function reportError(streams: Streams, error: unknown): number {
  const c = colours(streams.err, streams.env);
  if (error instanceof ApiError) {
    streams.err.write(`${c.red("error:")} ${error.message}\n`);
    for (const e of error.errors) streams.err.write(`  ${c.bold(e.path)}: ${e.message}\n`);
    return 1;
  }
  if (error instanceof UsageError) {
    streams.err.write(`${c.red("error:")} ${error.message}\n`);
    return 2;
  }
  streams.err.write(`${c.red("error:")} ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}
