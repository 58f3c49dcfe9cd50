/**
 * `meshplane diff -f FILE|DIR [-R] [--prune -l SELECTOR]`: what `apply` would change, as `kubectl diff`
 * says it (docs/cli.md#apply---prune-and-diff-for-ci). Each document, read and validated as `apply
 * --prune` reads it, is compared in its stored form with what is stored; with `--prune`, what the
 * prune would delete is shown all removed. Exit 0: no differences, 1: differences, 2: an error.
 */
import type { Command } from "commander";
import { ApiError, type Client } from "../client";
import { UsageError } from "../config";
import { readDocuments } from "../documents";
import { type Item, kindOf } from "../kinds";
import { colours, reportError } from "../output";
import { clientFor, optionsOf, readStdin, streamsOf } from "../runtime";
import { type Desired, storedForm, validated } from "./desired";
import { pruneScope, pruneTargets } from "./prune";
import { unifiedDiff } from "./unified-diff";

/** How many resources are read from the API at once. */
const READS_IN_FLIGHT = 8;

/** What is stored for each document (undefined: nothing yet), read a few at a time. */
async function liveOf(client: Client, desired: readonly Desired[]): Promise<(Item | undefined)[]> {
  const live: (Item | undefined)[] = Array.from({ length: desired.length });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < desired.length; i = next++) {
      const d = desired[i] as Desired;
      const path = `${kindOf(d.doc.kind)?.path}/${encodeURIComponent(d.doc.metadata.name)}`;
      try {
        live[i] = (await client.request<Item>("GET", path)).body;
      } catch (error) {
        if (!(error instanceof ApiError && error.status === 404)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(READS_IN_FLIGHT, desired.length) }, worker));
  return live;
}

/** Prints the differences and returns 1 when there are some, 0 when none; any error is reported and is exit 2. */
export async function diff(_o: unknown, command: Command): Promise<number> {
  const streams = streamsOf();
  try {
    const o = optionsOf<{ filename: string[]; recursive?: boolean; prune?: boolean; selector?: string; pruneAllowlist?: string[] }>(command);
    const scope = pruneScope(o);
    const desired = validated(readDocuments(o.filename, o.recursive === true, readStdin));
    if (desired.length === 0) throw new UsageError("no documents found");
    const client = clientFor(command);
    const live = await liveOf(client, desired);
    const pruned = scope ? (await pruneTargets(client, scope, new Set(desired.map((d) => d.key)))).targets : [];
    const c = colours(streams.out, streams.env);
    let changed = 0;
    const print = (key: string, before: Item | undefined, after: unknown) => {
      const text = unifiedDiff(key, before === undefined ? undefined : storedForm(before), after, c);
      if (text !== "") changed++;
      streams.out.write(text);
    };
    desired.forEach((d, i) => print(d.key, live[i], storedForm(d.doc)));
    for (const t of pruned) print(`${t.kind.kind}/${t.name}`, t.resource, undefined);
    return changed > 0 ? 1 : 0;
  } catch (error) {
    // kubectl's convention: 1 means differences, so every error is 2 or more.
    return Math.max(2, reportError(streams, error));
  }
}
