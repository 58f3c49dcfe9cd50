/** `cluster register|list|describe|deregister|bootstrap-token`. */
import type { Command } from "commander";
import { UsageError } from "../config";
import { type Item, kindOf, text } from "../kinds";
import { colours, formatData } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";
import { listAll, printItems } from "./resources";

interface Bootstrap {
  cluster: Item;
  bootstrapToken: string;
  expiresAt: string;
  helmInstall: string;
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

export async function register(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ label: string[]; output: string }>(command);
  const labels = labelsFrom(o.label);
  const { body } = await clientFor(command).request<Bootstrap>("POST", "/v1/clusters", { body: { name, ...(Object.keys(labels).length > 0 ? { labels } : {}) } });
  printBootstrap(body, o.output, `cluster ${name} registered`);
  return 0;
}

export async function bootstrapToken(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const { body } = await clientFor(command).request<Bootstrap>("POST", `/v1/clusters/${encodeURIComponent(name)}/bootstrap-token`);
  printBootstrap(body, o.output, `new bootstrap token for cluster ${name}`);
  return 0;
}

export async function list(_o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  printItems(kindOf("clusters") as NonNullable<ReturnType<typeof kindOf>>, await listAll(clientFor(command), "/v1/clusters", new URLSearchParams()), o.output, { single: false });
  return 0;
}

export async function describe(name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ output: string }>(command);
  const client = clientFor(command);
  const { body: cluster } = await client.request<Item>("GET", `/v1/clusters/${encodeURIComponent(name)}`);
  let snapshot: Item | undefined;
  try {
    snapshot = (await client.request<Item>("GET", `/v1/clusters/${encodeURIComponent(name)}/snapshot`)).body;
  } catch {
    snapshot = undefined; // none published yet
  }
  const streams = streamsOf();
  if (o.output !== "text") {
    streams.out.write(formatData({ cluster, snapshot: snapshot ?? null }, o.output as "yaml" | "json"));
    return 0;
  }
  const c = colours(streams.out, streams.env);
  const line = (k: string, v: unknown) => streams.out.write(`${c.bold(`${k}:`.padEnd(20))}${text(v) || "-"}\n`);
  line("Name", cluster.name);
  line("State", cluster.state);
  line("Labels", Object.entries((cluster.labels as Record<string, string> | undefined) ?? {}).map(([k, v]) => `${k}=${v}`).join(", "));
  line("Created", cluster.createdAt);
  line("Agent last seen", cluster.lastSeenAt);
  line("Applied generation", cluster.appliedGeneration);
  if (snapshot !== undefined) {
    const { objects: _objects, ...rest } = snapshot as Item & { objects?: unknown };
    line("Latest snapshot", rest.generation ?? rest);
  }
  for (const cert of (cluster.certificates as Item[] | undefined) ?? []) line(`Certificates ${text(cert.mesh)}`, cert.notAfter ?? cert.error ?? cert);
  return 0;
}

export async function deregister(name: string, _o: unknown, command: Command): Promise<number> {
  await clientFor(command).request("DELETE", `/v1/clusters/${encodeURIComponent(name)}`);
  streamsOf().out.write(`cluster ${name} deregistered\n`);
  return 0;
}
