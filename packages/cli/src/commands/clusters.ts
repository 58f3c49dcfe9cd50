/** `cluster register|list|describe|deregister|bootstrap-token|grant`. */
import type { Command } from "commander";
import { UsageError } from "../config";
import { type ClusterView, STALE_AFTER_S, ago, certificateDays, healthOf, healthOfAll, listClusters, problemsOf, secondsSince } from "../health";
import { type InstallOptions, type InstallPlan, RELEASE, helmInstall, planInstall, waitForAgent } from "../install";
import { type Item, grantText, kindOf, text } from "../kinds";
import { colours, formatData, table } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";

interface Bootstrap {
  cluster: Item;
  bootstrapToken: string;
  expiresAt: string;
  helmInstall: string;
  helmValues?: unknown;
}

/** A cluster's effective grant as the API shows it (docs/gitops.md#grants). */
interface Authoring {
  kinds: string[];
  clusters: string[];
  default?: true;
  unregistered?: string[];
}

const authoringOf = (cluster: object): Authoring | undefined => (cluster as { authoring?: Authoring }).authoring;

const GRANTABLE = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"];

/** The words of a comma-separated option value. */
const words = (value: string): string[] =>
  value
    .split(",")
    .map((w) => w.trim())
    .filter((w) => w !== "");

/**
 * The body of `cluster grant NAME` (docs/gitops.md#grants): `--kinds` (kinds or short names, comma
 * separated; `none` for none) and `--clusters` (names, or `*`), each the default's when left out
 * (policies; the cluster itself); undefined with `--default`. UsageError for a mix or an unknown kind.
 */
export function grantBody(name: string, o: { kinds?: string; clusters?: string; default?: boolean }): { kinds: string[]; clusters: string[] } | undefined {
  if (o.default) {
    if (o.kinds !== undefined || o.clusters !== undefined)
      throw new UsageError("--default puts the grant back to the default: give it without --kinds or --clusters");
    return undefined;
  }
  if (o.kinds === undefined && o.clusters === undefined) throw new UsageError("give --kinds, --clusters or both, or --default");
  const kinds =
    o.kinds === undefined
      ? ["TrafficPolicy", "AccessPolicy"]
      : o.kinds.trim() === "none"
        ? []
        : words(o.kinds).map((w) => {
            const kind = kindOf(w)?.kind;
            if (kind === undefined || !GRANTABLE.includes(kind)) throw new UsageError(`--kinds: ${w} is not one of ${GRANTABLE.join(", ")} (or none)`);
            return kind;
          });
  return { kinds, clusters: o.clusters === undefined ? [name] : words(o.clusters) };
}

/** `cluster grant NAME`: sets what the cluster may author, or with --default clears it (admin). */
export async function grant(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ kinds?: string; clusters?: string; default?: boolean; output: string }>(command);
  const body = grantBody(name, o);
  const path = `/v1/clusters/${encodeURIComponent(name)}/authoring`;
  const client = clientFor(command);
  const { body: cluster } = body === undefined ? await client.request<Item>("DELETE", path) : await client.request<Item>("PUT", path, { body });
  const streams = streamsOf();
  if (o.output === "json" || o.output === "yaml") {
    streams.out.write(formatData(cluster, o.output));
    return 0;
  }
  const authoring = authoringOf(cluster);
  streams.out.write(`cluster ${name} may author ${grantText(authoring)}\n`);
  for (const other of authoring?.unregistered ?? []) {
    streams.err.write(`note: cluster ${other} is not registered; the grant covers it once it is\n`);
  }
  return 0;
}

function labelsFrom(pairs: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--label must be key=value, not "${pair}"`);
    labels[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return labels;
}

function printBootstrap(b: Bootstrap, output: string, what: string): void {
  const streams = streamsOf();
  if (output === "json") {
    streams.out.write(formatData(b, "json"));
    return;
  }
  const c = colours(streams.out, streams.env);
  streams.out.write(`${what}. Install its agent with (the bootstrap token inside works once, until ${b.expiresAt}):\n\n${c.bold(b.helmInstall)}\n`);
}

type InstallFlags = InstallOptions & { install?: boolean; output: string };

/** helm, then the wait for the agent; `undoRegistration` deregisters a cluster this command registered when helm fails. */
async function installAgent(command: Command, name: string, b: Bootstrap, plan: InstallPlan, undoRegistration: boolean): Promise<number> {
  const streams = streamsOf();
  const c = colours(streams.err, streams.env);
  const client = clientFor(command);
  if (b.helmValues === undefined) throw new Error("the control plane did not return helmValues: it is older than this CLI; run the printed helm line instead");
  streams.err.write(`installing the agent of cluster ${name} with helm: kube context ${plan.context}, namespace ${plan.namespace}, chart ${plan.chart}\n`);
  const helm = await helmInstall(plan, b.helmValues, process.env);
  if (helm.code !== 0) {
    streams.err.write(`${helm.output.trimEnd()}\n${c.red("error:")} helm failed (exit ${helm.code}); ${helm.undone}.\n`);
    if (undoRegistration) {
      await client.request("DELETE", `/v1/clusters/${encodeURIComponent(name)}`);
      streams.err.write(`cluster ${name} was deregistered again: nothing is left of it in meshplane.\n`);
    }
    return 1;
  }
  streams.err.write(`${c.green("✔")} helm: release ${RELEASE} installed\n`);
  return waitForAgent(client, streams, name, plan);
}

export async function register(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ label: string[] } & InstallFlags>(command);
  const labels = labelsFrom(o.label);
  // helm and the chart are checked before anything is registered.
  const plan = o.install ? planInstall(o, process.env) : undefined;
  const { body } = await clientFor(command).request<Bootstrap>("POST", "/v1/clusters", {
    body: { name, ...(Object.keys(labels).length > 0 ? { labels } : {}) },
  });
  if (plan) {
    streamsOf().err.write(`cluster ${name} registered\n`);
    return installAgent(command, name, body, plan, true);
  }
  printBootstrap(body, o.output, `cluster ${name} registered`);
  return 0;
}

export async function bootstrapToken(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<InstallFlags>(command);
  const plan = o.install ? planInstall(o, process.env) : undefined;
  const { body } = await clientFor(command).request<Bootstrap>("POST", `/v1/clusters/${encodeURIComponent(name)}/bootstrap-token`);
  if (plan) return installAgent(command, name, body, plan, false);
  printBootstrap(body, o.output, `new bootstrap token for cluster ${name}`);
  return 0;
}

export async function list(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const client = clientFor(command);
  const clusters = await listClusters(client);
  const streams = streamsOf();
  if (o.output === "name") {
    streams.out.write(clusters.map((c) => `clusters/${c.name}\n`).join(""));
    return 0;
  }
  const health = await healthOfAll(client, clusters);
  if (o.output === "json" || o.output === "yaml") {
    streams.out.write(formatData({ items: health.map(({ cluster, snapshot: { objects: _objects, ...snapshot } }) => ({ ...cluster, snapshot })) }, o.output));
    return 0;
  }
  if (clusters.length === 0) {
    streams.err.write("no clusters registered: `meshplane cluster register NAME`\n");
    return 0;
  }
  const now = new Date();
  const c = colours(streams.out, streams.env);
  const rows = health.map(({ cluster, snapshot }) => {
    const days = certificateDays(cluster, now);
    const row = [
      cluster.name,
      cluster.state,
      ago(secondsSince(snapshot.lastSeenAt ?? cluster.lastSeenAt, now)),
      `${snapshot.appliedGeneration}/${snapshot.generation}`,
      snapshot.inSync ? c.green("yes") : c.yellow("no"),
      snapshot.failures.length > 0 || snapshot.agentError ? c.red(String(snapshot.failures.length + (snapshot.agentError ? 1 : 0))) : "0",
      days === undefined ? "-" : `${days}d`,
    ];
    if (o.output === "wide")
      row.push(
        grantText(authoringOf(cluster)),
        Object.entries(cluster.labels ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(","),
      );
    return row;
  });
  const head = ["NAME", "STATE", "LAST SEEN", "APPLIED/LATEST", "IN SYNC", "FAILURES", "CERT EXPIRY", ...(o.output === "wide" ? ["AUTHORING", "LABELS"] : [])];
  streams.out.write(table(streams, head, rows));
  return 0;
}

export async function describe(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const client = clientFor(command);
  const { body: cluster } = await client.request<ClusterView>("GET", `/v1/clusters/${encodeURIComponent(name)}`);
  const { snapshot } = await healthOf(client, cluster);
  const streams = streamsOf();
  if (o.output !== "text") {
    streams.out.write(formatData({ cluster, snapshot }, o.output as "yaml" | "json"));
    return 0;
  }
  const now = new Date();
  const c = colours(streams.out, streams.env);
  const line = (k: string, v: unknown) => streams.out.write(`${c.bold(`${k}:`.padEnd(22))}${text(v) || "-"}\n`);
  line("Name", cluster.name);
  line("State", cluster.state);
  line(
    "Labels",
    Object.entries(cluster.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(", "),
  );
  line("Registered", cluster.createdAt);
  line("Authoring", grantText(authoringOf(cluster)));
  line("Agent last seen", ago(secondsSince(snapshot.lastSeenAt ?? cluster.lastSeenAt, now)));
  line("Latest generation", `${snapshot.generation}${snapshot.signedAt ? ` (signed ${snapshot.signedAt})` : ""}, ${snapshot.objects.length} object(s)`);
  line("Applied generation", snapshot.appliedGeneration);
  line("In sync", snapshot.inSync ? "yes" : "no");
  for (const cert of cluster.certificates ?? [])
    line(`Certificates ${cert.mesh}`, `${cert.state}${cert.notAfter ? `, expires ${cert.notAfter}` : ""}${cert.error ? `: ${cert.error}` : ""}`);
  const problems = problemsOf({ cluster, snapshot }, now, { staleAfterS: STALE_AFTER_S, certificateWarnDays: 7 });
  if (problems.length > 0) {
    streams.out.write(`${c.bold("Problems:")}\n`);
    for (const p of problems) streams.out.write(`  ${c.red("✘")} ${p}\n`);
  }
  return 0;
}

export async function deregister(name: string, _o: unknown, command: Command): Promise<number> {
  await clientFor(command).request("DELETE", `/v1/clusters/${encodeURIComponent(name)}`);
  streamsOf().out.write(`cluster ${name} deregistered\n`);
  return 0;
}
