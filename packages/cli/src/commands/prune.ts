/**
 * `--prune -l SELECTOR` of `apply` and `diff` (docs/cli.md#apply---prune-and-diff-for-ci): the
 * tenant's resources that carry the selector's labels and that the files no longer hold. Every user
 * kind is looked at unless `--prune-allowlist` names fewer; a resource authored in a cluster
 * (`metadata.source`) is never pruned — it belongs to that cluster's Git (docs/gitops.md#names-and-sources).
 */
import { type Requirement, matchesLabels, parseLabelSelector } from "@meshplane/core";
import { ApiError, type Client, listAll } from "../client";
import { UsageError } from "../config";
import { type Item, KINDS, type Kind, kindOf, text } from "../kinds";
import type { Streams } from "../output";
import type { SourceDocument } from "../documents";
import { fieldLocation } from "./desired";

/** What `--prune` looks at: the selector as typed and parsed, and the kinds. */
export interface PruneScope {
  selector: string;
  requirements: Requirement[];
  kinds: Kind[];
}

/** A stored resource `--prune` would delete, at the resourceVersion it was listed with. */
export interface PruneTarget {
  kind: Kind;
  name: string;
  resourceVersion: string;
  resource: Item;
}

/** What `--prune` found: the targets, and the matching resources authored in a cluster, which it leaves. */
export interface PruneFound {
  targets: PruneTarget[];
  authored: { kind: Kind; name: string }[];
}

/** Requirements a resource meets only by carrying a label: `k=v`, `k in (…)`, `k`. */
const CARRIED = new Set(["=", "in", "exists"]);

/**
 * The scope of `--prune` from the options, or undefined without it. UsageError (exit 2, nothing sent)
 * for `--prune` without `-l`, `-l` or `--prune-allowlist` without `--prune`, a selector that does not
 * parse or that an unlabelled resource would match, and an allowlist naming no user kind.
 */
export function pruneScope(o: { prune?: boolean; selector?: string; pruneAllowlist?: string[] }): PruneScope | undefined {
  if (!o.prune) {
    if (o.selector !== undefined) throw new UsageError("-l chooses what --prune deletes: add --prune, or leave -l out");
    if ((o.pruneAllowlist ?? []).length > 0) throw new UsageError("--prune-allowlist narrows --prune: add --prune -l SELECTOR");
    return undefined;
  }
  if (o.selector === undefined || o.selector.trim() === "")
    throw new UsageError(
      "--prune needs -l SELECTOR (for example -l team=shop): it deletes only resources carrying those labels, so that it never deletes what these files do not own — resources made in the console, another team's, or another repository's",
    );
  let requirements: Requirement[];
  try {
    requirements = parseLabelSelector(o.selector);
  } catch (error) {
    throw new UsageError(`-l ${JSON.stringify(o.selector)}: ${(error as Error).message}`);
  }
  if (!requirements.some((r) => CARRIED.has(r.op)))
    throw new UsageError(`-l ${JSON.stringify(o.selector)} also matches resources without labels; --prune needs a label they carry, such as team=shop`);
  const allowlist = o.pruneAllowlist ?? [];
  const wrong = allowlist.filter((name) => kindOf(name)?.user !== true);
  if (wrong.length > 0)
    throw new UsageError(`--prune-allowlist takes virtualmeshes (vm), trafficpolicies (tp) or accesspolicies (ap), not ${wrong.join(", ")}`);
  const kinds = KINDS.filter((k) => k.user && (allowlist.length === 0 || allowlist.some((name) => kindOf(name) === k)));
  return { selector: o.selector, requirements, kinds };
}

/**
 * What `--prune` would delete: each kind's resources the selector matches (listed by the API, checked
 * again here) whose `Kind/name` is not in `keep`, sorted by kind and name; and, apart, the matching
 * ones authored in a cluster, which it leaves alone.
 */
export async function pruneTargets(client: Client, scope: PruneScope, keep: ReadonlySet<string>): Promise<PruneFound> {
  const targets: PruneTarget[] = [];
  const authored: PruneFound["authored"] = [];
  for (const kind of scope.kinds) {
    const items = await listAll(client, kind.path, new URLSearchParams({ labelSelector: scope.selector }));
    for (const resource of items) {
      const name = text(resource.metadata?.name);
      if (keep.has(`${kind.kind}/${name}`) || !matchesLabels(scope.requirements, resource.metadata?.labels)) continue;
      if (resource.metadata?.source !== undefined) authored.push({ kind, name });
      else targets.push({ kind, name, resourceVersion: text(resource.metadata?.resourceVersion), resource });
    }
  }
  return { targets: targets.sort((a, b) => a.kind.kind.localeCompare(b.kind.kind) || a.name.localeCompare(b.name)), authored };
}

/** What became of one target: deleted, already gone, changed since it was listed (kept), or refused. */
export type PruneOutcome = { action: "pruned" } | { action: "gone" } | { action: "changed" } | { action: "failed"; error: ApiError };

/**
 * Deletes `target` only at the resourceVersion it was listed with (If-Match), so a resource someone
 * changed meanwhile is kept (412) rather than deleted unseen.
 */
export async function pruneOne(client: Client, target: PruneTarget): Promise<PruneOutcome> {
  try {
    await client.request("DELETE", `${target.kind.path}/${encodeURIComponent(target.name)}`, { headers: { "if-match": `"${target.resourceVersion}"` } });
    return { action: "pruned" };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 404) return { action: "gone" };
    if (error.status === 412) return { action: "changed" };
    if (error.status === 0) throw error;
    return { action: "failed", error };
  }
}

/** One line of `apply --prune -o json`: what became of a resource the prune looked at. */
export interface PruneEntry {
  kind: string;
  name: string;
  action: "pruned" | "gone" | "changed" | "failed" | "authored";
}

/**
 * Deletes the targets one by one (with `dryRun`, only says what it would delete), printing a line
 * for each as kubectl does — `trafficpolicies/cart-retries pruned` on stdout (unless `quiet`: `-o json`),
 * what it left and why on stderr. `ok` is false when one was changed meanwhile or refused.
 */
export async function prune(
  client: Client,
  streams: Streams,
  found: PruneFound,
  o: { dryRun: boolean; quiet: boolean },
): Promise<{ entries: PruneEntry[]; ok: boolean }> {
  const entries: PruneEntry[] = [];
  if (found.authored.length > 0) {
    const names = found.authored.map((a) => `${a.kind.plural}/${a.name}`);
    const shown = names.length > 10 ? `${names.slice(0, 10).join(", ")} and ${names.length - 10} more` : names.join(", ");
    streams.err.write(`not pruned, authored in a cluster (they belong to that cluster's Git): ${shown}\n`);
  }
  for (const a of found.authored) entries.push({ kind: a.kind.kind, name: a.name, action: "authored" });
  if (o.dryRun && !o.quiet && found.targets.length > 0) streams.out.write("pruned by this apply (not part of the plan above):\n");
  for (const t of found.targets) {
    const outcome: PruneOutcome = o.dryRun ? { action: "pruned" } : await pruneOne(client, t);
    const id = `${t.kind.plural}/${t.name}`;
    entries.push({ kind: t.kind.kind, name: t.name, action: outcome.action });
    if (outcome.action === "pruned") {
      if (!o.quiet) streams.out.write(`${id} pruned${o.dryRun ? " (dry run)" : ""}\n`);
    } else if (outcome.action === "gone") streams.err.write(`${id} was already deleted\n`);
    else if (outcome.action === "changed")
      streams.err.write(`${id} not pruned: it changed after it was listed (resourceVersion ${t.resourceVersion}); apply again to prune it\n`);
    else streams.err.write(`error: ${id} not pruned: ${outcome.error.message}\n`);
  }
  return { entries, ok: entries.every((e) => e.action !== "changed" && e.action !== "failed") };
}

/**
 * Warns (stderr) of each document the selector does not match: it is applied, but once its file is
 * removed no `--prune` with this selector deletes it.
 */
export function warnUnselected(streams: Streams, scope: PruneScope, docs: readonly SourceDocument[]): void {
  for (const { source, doc } of docs) {
    const labels = (doc.metadata as Item["metadata"])?.labels;
    if (!matchesLabels(scope.requirements, labels))
      streams.err.write(`warning: ${fieldLocation(source, doc, "")} does not match -l ${scope.selector}: --prune will not delete it once its file is gone\n`);
  }
}
