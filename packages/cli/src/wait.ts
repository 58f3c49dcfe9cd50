/**
 * `apply --wait`: after an apply, watch each applied resource until it is translated and every
 * cluster it reaches has applied it — or until one is INVALID or FAILED, which ends the wait with the
 * resource, the destination or cluster and the reason (what a CI gate needs). On a terminal the
 * progress is one live line per resource; elsewhere a line each time a resource's state changes.
 */
import type { Client } from "./client";
import { type Kind, kindOf } from "./kinds";
import { colours, type Streams } from "./output";
import { progress } from "./progress";
import { reasonsOf } from "@meshplane/core";

interface Watched {
  kind: Kind;
  name: string;
  generation: number;
}

interface Status {
  observedGeneration?: number;
  state: string;
  errors?: string[];
  destinations?: Record<string, { errors?: string[] }>;
  meshes?: Record<string, { errors?: string[] }>;
  clusters?: Record<string, { generation: number; applied: boolean; errors?: string[] }>;
}

/** Where one resource is: waiting (and on what), done, or failed (and why). */
export function progressOf(w: Watched, status: Status | undefined): { done: boolean; failed: boolean; line: string; reasons: string[] } {
  const id = `${w.kind.plural}/${w.name}`;
  // The API answers a write with PENDING and no reasons; translation then decides. A translated
  // resource can stay PENDING with reasons (a TrafficPolicy whose calls wait for a VirtualMesh's
  // shared trust, a VirtualMesh waiting for its CA): it is waited for, saying on what.
  const reasons = status?.state === "PENDING" ? reasonsOf(status) : [];
  if (status === undefined || (status.observedGeneration ?? 0) < w.generation || (status.state === "PENDING" && reasons.length === 0))
    return { done: false, failed: false, line: `${id}: waiting for translation`, reasons: [] };
  if (status.state === "PENDING")
    return { done: false, failed: false, line: `${id}: PENDING, ${reasons[0]}${reasons.length > 1 ? ` (and ${reasons.length - 1} more)` : ""}`, reasons };
  if (status.state === "INVALID" || status.state === "FAILED") return { done: true, failed: true, line: `${id}: ${status.state}`, reasons: reasonsOf(status) };
  const clusters = Object.entries(status.clusters ?? {});
  const pending = clusters.filter(([, c]) => !c.applied).map(([name]) => name);
  if (pending.length > 0) {
    const applied = clusters.length - pending.length;
    return {
      done: false,
      failed: false,
      line: `${id}: ${status.state}, applied by ${applied}/${clusters.length} cluster(s)${pending.length > 0 ? `, waiting for ${pending.slice(0, 5).join(", ")}${pending.length > 5 ? ", …" : ""}` : ""}`,
      reasons: [],
    };
  }
  return { done: true, failed: false, line: `${id}: ${status.state}, applied by ${clusters.length} cluster(s)`, reasons: [] };
}

export async function waitFor(
  client: Client,
  streams: Streams,
  results: { kind: string; name: string; generation: number }[],
  timeoutMs: number,
  now = () => Date.now(),
): Promise<number> {
  const watched: Watched[] = results.flatMap((r) => {
    const kind = kindOf(r.kind);
    return kind ? [{ kind, name: r.name, generation: r.generation }] : [];
  });
  const c = colours(streams.err, streams.env);
  const display = await progress(streams);
  const last = new Map<string, string>();
  const deadline = now() + timeoutMs;
  const done = new Set<string>();
  let failed = 0;
  for (let round = 0; ; round++) {
    const lines: { key: string; text: string }[] = [];
    for (const w of watched) {
      const id = `${w.kind.plural}/${w.name}`;
      if (done.has(id)) {
        lines.push({ key: id, text: last.get(id) as string });
        continue;
      }
      const { body } = await client.request<{ status?: Status }>("GET", `${w.kind.path}/${encodeURIComponent(w.name)}`);
      const p = progressOf(w, body.status);
      const line = p.failed
        ? `${c.red("✘")} ${p.line}${p.reasons.map((r) => `\n    ${r}`).join("")}`
        : p.done
          ? `${c.green("✔")} ${p.line}`
          : `${c.yellow("…")} ${p.line}`;
      if (p.done) {
        done.add(id);
        if (p.failed) failed++;
      }
      last.set(id, line);
      lines.push({ key: id, text: line });
    }
    display.show(lines);
    if (done.size === watched.length) {
      display.done();
      if (failed > 0) streams.err.write(c.red(`${failed} resource(s) INVALID or FAILED\n`));
      return failed > 0 ? 1 : 0;
    }
    if (now() > deadline) {
      display.done();
      streams.err.write(
        c.red(
          `timed out after ${Math.round(timeoutMs / 1000)} s; still waiting: ${watched
            .filter((w) => !done.has(`${w.kind.plural}/${w.name}`))
            .map((w) => `${w.kind.plural}/${w.name}`)
            .join(", ")}\n`,
        ),
      );
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 250 * 2 ** Math.min(round, 3))));
  }
}
