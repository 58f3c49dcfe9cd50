/** `get`, `apply` and `delete`. */
import type { Command } from "commander";
import { ApiError, listAll } from "../client";
import { UsageError, seconds } from "../config";
import { type SourceDocument, readDocuments } from "../documents";
import { type Item, type Kind, kindNames, kindOf, text } from "../kinds";
import { colours, formatData, table } from "../output";
import { clientFor, optionsOf, readStdin, streamsOf } from "../runtime";
import { type PlanView, planInvalid } from "@meshplane/core";
import { checkKinds, fieldLocation, validated } from "./desired";
import { printPlan, routingFrom } from "./plan";
import { prune, pruneScope, pruneTargets, warnUnselected } from "./prune";

/** The API takes at most this many documents in one apply (each apply is atomic). */
const APPLY_BATCH = 99;

function kindFor(name: string): Kind {
  const kind = kindOf(name);
  if (kind === undefined) throw new UsageError(`unknown kind "${name}"; known: ${kindNames()}`);
  return kind;
}

const nameOf = (item: Item): string => text(item.metadata?.name ?? item.name);

export function printItems(kind: Kind, items: Item[], output: string, command: { single: boolean }): void {
  const streams = streamsOf();
  if (output === "json" || output === "yaml") {
    streams.out.write(formatData(command.single ? items[0] : { items }, output));
    return;
  }
  if (output === "name") {
    streams.out.write(items.map((i) => `${kind.plural}/${nameOf(i)}\n`).join(""));
    return;
  }
  if (items.length === 0) {
    streams.err.write(`no ${kind.plural} found\n`);
    return;
  }
  const columns = kind.columns.filter((c) => (output === "wide" || !c.wide) && (!c.whenSet || items.some((i) => c.value(i) !== "")));
  const c = colours(streams.out, streams.env);
  const paint = (value: string) =>
    value === "ACCEPTED" ? c.green(value) : value === "INVALID" || value === "FAILED" ? c.red(value) : value === "PENDING" ? c.yellow(value) : value;
  streams.out.write(
    table(
      streams,
      ["NAME", ...columns.map((col) => col.title)],
      items.map((i) => [nameOf(i), ...columns.map((col) => paint(col.value(i)))]),
    ),
  );
}

export async function get(kindName: string, name: string | undefined, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ selector?: string; cluster?: string; namespace?: string; mesh?: string; output: string }>(command);
  const kind = kindFor(kindName);
  const client = clientFor(command);
  if (name !== undefined && (kind.user || kind.kind === "Cluster")) {
    const { body } = await client.request<Item>("GET", `${kind.path}/${encodeURIComponent(name)}`);
    printItems(kind, [body], o.output, { single: true });
    return 0;
  }
  const query = new URLSearchParams();
  if (o.selector !== undefined) query.set("labelSelector", o.selector);
  for (const key of ["cluster", "namespace", "mesh"] as const) {
    const value = o[key];
    if (value === undefined) continue;
    if (kind.user || kind.kind === "Cluster") throw new UsageError(`--${key} filters discovered kinds (meshes, workloads, destinations), not ${kind.plural}`);
    query.set(key, value);
  }
  let items = await listAll(client, kind.path, query);
  if (name !== undefined) {
    // Discovered objects are named per cluster: the name may match one in each.
    items = items.filter((i) => nameOf(i) === name);
    if (items.length === 0) throw new ApiError(404, `no ${kind.kind} named ${name}${o.cluster ? ` in cluster ${o.cluster}` : ""}`);
  }
  printItems(kind, items, o.output, { single: name !== undefined && items.length === 1 });
  return 0;
}

/** Field errors of a batch name `documents[i]`; say which file and document that is. */
function locate(error: unknown, batch: SourceDocument[]): unknown {
  if (!(error instanceof ApiError)) return error;
  const errors = error.errors.map((e) => {
    const m = /^documents\[(\d+)\](.*)$/.exec(e.path);
    const doc = m ? batch[Number(m[1])] : undefined;
    return doc && m ? { path: fieldLocation(doc.source, doc.doc, (m[2] ?? "").replace(/^\./, "")), message: e.message } : e;
  });
  return new ApiError(error.status, error.message, errors, error);
}

interface ApplyOptions {
  filename: string[];
  recursive?: boolean;
  dryRun?: boolean;
  routing?: string[];
  wait?: boolean;
  timeout: string;
  output: string;
  prune?: boolean;
  selector?: string;
  pruneAllowlist?: string[];
}

export async function apply(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<ApplyOptions>(command);
  const timeoutS = seconds("--timeout", o.timeout);
  const streams = streamsOf();
  const routing = routingFrom(o.routing ?? []);
  const routed = Object.keys(routing).length > 0;
  if (routed && !o.dryRun) throw new UsageError("--routing only plans: add --dry-run (to switch a mesh's output API, set spec.routing.api on its VirtualMesh)");
  const scope = pruneScope(o);
  // A migration's plan may name no documents: --dry-run --routing MESH=API alone.
  const docs = routed && o.filename.length === 0 && !scope ? [] : readDocuments(o.filename, o.recursive === true, readStdin);
  if (docs.length === 0 && (!routed || scope))
    throw new UsageError(`no documents found${scope ? ": --prune would delete everything the selector matches" : ""}`);
  checkKinds(docs);
  // With --prune, every document is checked here first: a bad one must stop the prune before anything is sent.
  const keep = scope ? new Set(validated(docs).map((d) => d.key)) : undefined;
  if (scope) warnUnselected(streams, scope, docs);
  const client = clientFor(command);
  const pruning = async (dryRun: boolean, quiet: boolean) =>
    scope && keep ? prune(client, streams, await pruneTargets(client, scope, keep), { dryRun, quiet }) : { entries: [], ok: true };
  if (o.dryRun) {
    if (docs.length > APPLY_BATCH) throw new UsageError(`--dry-run plans at most ${APPLY_BATCH} documents at once; ${docs.length} given`);
    let plan: PlanView;
    try {
      const body = { ...(docs.length > 0 ? { documents: docs.map((d) => d.doc) } : {}), ...(routed ? { routing } : {}) };
      plan = (await client.request<PlanView>("POST", "/v1/plan", { body })).body;
    } catch (error) {
      throw locate(error, docs);
    }
    if (o.output !== "json") printPlan(plan, (await import("diff")).structuredPatch);
    const pruned = await pruning(true, o.output === "json");
    if (o.output === "json") streams.out.write(formatData(scope ? { ...plan, pruned: pruned.entries } : plan, "json"));
    return planInvalid(plan) ? 1 : 0;
  }
  const results: { kind: string; name: string; action: string; generation: number }[] = [];
  for (let i = 0; i < docs.length; i += APPLY_BATCH) {
    const batch = docs.slice(i, i + APPLY_BATCH);
    try {
      const { body } = await client.request<{ results: { kind: string; name: string; action: string; generation: number }[] }>("POST", "/v1/apply", {
        body: { documents: batch.map((d) => d.doc) },
      });
      results.push(...body.results);
    } catch (error) {
      if (results.length > 0) streams.err.write(`applied before the error: ${results.length} document(s) in earlier batches of ${APPLY_BATCH}\n`);
      throw locate(error, batch);
    }
  }
  if (o.output !== "json") for (const r of results) streams.out.write(`${kindOf(r.kind)?.plural ?? r.kind}/${r.name} ${r.action}\n`);
  const pruned = await pruning(false, o.output === "json");
  if (o.output === "json") streams.out.write(formatData(scope ? { results, pruned: pruned.entries } : { results }, "json"));
  if (!o.wait) return pruned.ok ? 0 : 1;
  const { waitFor } = await import("../wait");
  const waited = await waitFor(client, streams, results, timeoutS * 1000);
  return pruned.ok ? waited : Math.max(waited, 1);
}

export async function remove(kindName: string | undefined, name: string | undefined, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ filename: string[]; recursive?: boolean; ignoreNotFound?: boolean }>(command);
  const streams = streamsOf();
  let targets: { kind: Kind; name: string }[];
  if (o.filename.length > 0) {
    if (kindName !== undefined) throw new UsageError("give a kind and name, or -f, not both");
    const docs = readDocuments(o.filename, o.recursive === true, readStdin);
    checkKinds(docs);
    targets = docs.map((d) => ({ kind: kindFor(text(d.doc.kind)), name: text((d.doc.metadata as Item["metadata"])?.name) }));
  } else {
    if (kindName === undefined || name === undefined) throw new UsageError("name what to delete: `meshplane delete KIND NAME` or `meshplane delete -f FILE`");
    const kind = kindFor(kindName);
    if (!kind.user)
      throw new UsageError(
        `${kind.plural} are not deleted this way${kind.kind === "Cluster" ? "; use `meshplane cluster deregister`" : " (they are what the agents discover)"}`,
      );
    targets = [{ kind, name }];
  }
  const client = clientFor(command);
  let failed = 0;
  for (const t of targets) {
    try {
      await client.request("DELETE", `${t.kind.path}/${encodeURIComponent(t.name)}`);
      streams.out.write(`${t.kind.plural}/${t.name} deleted\n`);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404 && o.ignoreNotFound) continue;
      if (error instanceof ApiError && error.status === 404) {
        streams.err.write(`error: ${t.kind.plural}/${t.name} not found\n`);
        failed++;
        continue;
      }
      throw error;
    }
  }
  return failed > 0 ? 1 : 0;
}
