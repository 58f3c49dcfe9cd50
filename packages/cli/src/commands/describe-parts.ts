/** What every `describe` reads and how it prints: user resources, snapshots, one discovered object, the text layout. */
import type { GeneratedRef, PlacedObject, SnapshotObjectView } from "@meshplane/core";
import { ApiError, type Client, listAll } from "../client";
import { UsageError } from "../config";
import { listClusters } from "../health";
import { type Item, type Kind, kindOf, text } from "../kinds";
import { colours, type Streams } from "../output";

/** A user resource's status, as far as `describe` reads it. */
export interface Status {
  state: string;
  errors?: string[];
  destinations?: Record<string, { state: string; acceptanceOrder?: number; errors?: string[] }>;
  workloads?: string[];
  meshes?: Record<string, { state: string; errors?: string[] }>;
  clusters?: Record<string, { generation: number; applied: boolean; errors?: string[] }>;
}
export type Resource = Item & { kind: string; spec: Record<string, unknown>; status?: Status };
export const USER_KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const;

/** Every VirtualMesh, TrafficPolicy and AccessPolicy of the tenant. */
export async function userResources(client: Client): Promise<Resource[]> {
  const lists = await Promise.all(USER_KINDS.map((k) => listAll(client, (kindOf(k) as Kind).path)));
  return lists.flat() as Resource[];
}

/** Every cluster's latest snapshot objects, with the cluster each is in. */
export async function snapshotObjects(client: Client): Promise<PlacedObject[]> {
  const clusters = await listClusters(client);
  const out: PlacedObject[] = [];
  for (const c of clusters) {
    const { body } = await client.request<{ objects: SnapshotObjectView[] }>("GET", `/v1/clusters/${encodeURIComponent(c.name)}/snapshot`);
    for (const object of body.objects) out.push({ cluster: c.name, object });
  }
  return out;
}

/** The one discovered mesh, destination or workload of that name (in `cluster`, when given). */
export async function findDiscovered(client: Client, what: "mesh" | "destination" | "workload", name: string, cluster: string | undefined): Promise<Resource> {
  const kind = kindOf(what) as Kind;
  const matches = (await listAll(client, kind.path, new URLSearchParams(cluster ? { cluster } : {}))).filter((d) => d.metadata?.name === name);
  if (matches.length === 0)
    throw new ApiError(404, `no ${what} named ${name}${cluster ? ` in cluster ${cluster}` : ""}; \`meshplane get ${kind.short[0]}\` lists them`);
  if (matches.length > 1)
    throw new UsageError(`${name} is a ${what} in several clusters (${matches.map((m) => text(m.metadata?.cluster)).join(", ")}): add --cluster`);
  return matches[0] as Resource;
}

/** Writes `describe`'s text: headings, `Key:` fields, indented lines, states in colour on a terminal. */
export function printer(streams: Streams) {
  const c = colours(streams.out, streams.env);
  const paint = (state: string) => (state === "ACCEPTED" ? c.green(state) : state === "INVALID" || state === "FAILED" ? c.red(state) : c.yellow(state));
  return {
    c,
    paint,
    heading: (title: string) => streams.out.write(`\n${c.bold(title)}\n`),
    field: (k: string, v: unknown) => streams.out.write(`${c.bold(`${k}:`.padEnd(16))}${text(v) || "-"}\n`),
    line: (s: string) => streams.out.write(`  ${s}\n`),
  };
}

/** The generated objects, one per line with their cluster. */
export function printGenerated(p: ReturnType<typeof printer>, objects: GeneratedRef[], heading = "Generated objects"): void {
  p.heading(heading);
  if (objects.length === 0) p.line("none in the latest snapshots");
  for (const o of objects) p.line(`${o.cluster}: ${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`);
}
