/** `apply --dry-run`: the plan of `POST /v1/plan` as a reviewer reads it (docs/api.md#plan-a-change). */
import { type PlanView, type PlannedObjectView, plannedObjectName, statusChanges } from "@meshplane/core";
import type { structuredPatch } from "diff";
import { stringify } from "yaml";
import { UsageError } from "../config";
import { colours } from "../output";
import { streamsOf } from "../runtime";

const API_NAMES = ["ISTIO", "GATEWAY_API"];

/** `--routing MESH=API` pairs as the plan's `routing` (API in any case); a UsageError names a malformed pair. */
export function routingFrom(pairs: readonly string[]): Record<string, string> {
  const routing: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.lastIndexOf("=");
    const api = pair.slice(at + 1).toUpperCase();
    if (at <= 0 || !API_NAMES.includes(api)) throw new UsageError(`--routing must be MESH=ISTIO or MESH=GATEWAY_API, not "${pair}"`);
    routing[pair.slice(0, at)] = api;
  }
  return routing;
}

const yaml = (o: unknown) => stringify(o, { lineWidth: 0 });
const title = (o: PlannedObjectView) => plannedObjectName({ kind: o.kind, ...o.metadata });

/**
 * Prints the plan: each routed mesh's output API before and after; per cluster, each added object in
 * full (+), each changed one as a unified diff of its YAML against the cluster's latest snapshot,
 * each removed one by name (-); then every resource's predicted state — `before → after` where the
 * plan changes it — with its reasons.
 */
export function printPlan(plan: PlanView, patch: typeof structuredPatch): void {
  const streams = streamsOf();
  const c = colours(streams.out, streams.env);
  const paint = (state: string) => (state === "ACCEPTED" ? c.green(state) : state === "INVALID" ? c.red(state) : c.yellow(state));
  const routing = Object.entries(plan.routing ?? {});
  if (routing.length > 0) streams.out.write(`${c.bold("output API")}:\n`);
  for (const [mesh, r] of routing) {
    streams.out.write(`  mesh ${mesh} (cluster ${r.cluster}): ${r.from} → ${r.to}${r.state === "ACCEPTED" ? "" : ` ${paint(r.state)}`}\n`);
    for (const e of r.errors ?? []) streams.out.write(`    ${e}\n`);
  }
  for (const [cluster, changes] of Object.entries(plan.clusters).sort(([a], [b]) => a.localeCompare(b))) {
    const total = changes.added.length + changes.changed.length + changes.removed.length;
    streams.out.write(
      `${c.bold(`cluster ${cluster}`)}: ${total === 0 ? "no change" : `${changes.added.length} added, ${changes.changed.length} changed, ${changes.removed.length} removed`}\n`,
    );
    for (const o of changes.added) {
      streams.out.write(c.green(`  + ${title(o)}\n`));
      for (const line of yaml(o).trimEnd().split("\n")) streams.out.write(c.green(`    + ${line}\n`));
    }
    changes.changed.forEach((o, i) => {
      streams.out.write(c.yellow(`  ~ ${title(o)}\n`));
      const before = changes.previous?.[i];
      if (before === undefined) return;
      for (const hunk of patch("before", "after", yaml(before), yaml(o), "", "", { context: 2 }).hunks) {
        streams.out.write(c.cyan(`    @@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@\n`));
        for (const line of hunk.lines) streams.out.write(`    ${line.startsWith("+") ? c.green(line) : line.startsWith("-") ? c.red(line) : line}\n`);
      }
    });
    for (const o of changes.removed) streams.out.write(c.red(`  - ${plannedObjectName(o)}\n`));
  }
  streams.out.write(`${c.bold("predicted states")}:\n`);
  for (const { key, before, after, reasons } of statusChanges(plan)) {
    streams.out.write(`  ${key}: ${before === undefined ? "" : `${paint(before)} → `}${paint(after)}\n`);
    for (const reason of reasons) streams.out.write(`    ${reason}\n`);
  }
}
