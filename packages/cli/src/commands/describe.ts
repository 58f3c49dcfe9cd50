/**
 * `describe destination|policy|workload NAME`: the questions users ask most, answered from the API.
 * A destination: every policy that applies to it in acceptance order (the fields each sets, its
 * conflicts), who may call it, where it is federated, and its generated objects per cluster. A
 * policy: its state per destination and cluster, and its generated objects. A workload: what applies
 * to its outbound calls.
 */
import {
  type GeneratedRef,
  type PlacedObject,
  type SnapshotObjectView,
  describeDestination as destinationDescription,
  generatedBy,
  reasonsOf,
} from "@meshplane/core";
import type { Command } from "commander";
import { ApiError, type Client, listAll } from "../client";
import { UsageError } from "../config";
import { listClusters } from "../health";
import { type Item, type Kind, kindOf, text } from "../kinds";
import { colours, formatData, type Streams } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";

interface Status {
  state: string;
  errors?: string[];
  destinations?: Record<string, { state: string; acceptanceOrder?: number; errors?: string[] }>;
  workloads?: string[];
  meshes?: Record<string, { state: string; errors?: string[] }>;
  clusters?: Record<string, { generation: number; applied: boolean; errors?: string[] }>;
}
type Resource = Item & { kind: string; spec: Record<string, unknown>; status?: Status };
const USER_KINDS = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const;

async function userResources(client: Client): Promise<Resource[]> {
  const lists = await Promise.all(USER_KINDS.map((k) => listAll(client, (kindOf(k) as Kind).path)));
  return lists.flat() as Resource[];
}

/** Every cluster's latest snapshot objects, with the cluster each is in. */
async function snapshotObjects(client: Client): Promise<PlacedObject[]> {
  const clusters = await listClusters(client);
  const out: PlacedObject[] = [];
  for (const c of clusters) {
    const { body } = await client.request<{ objects: SnapshotObjectView[] }>("GET", `/v1/clusters/${encodeURIComponent(c.name)}/snapshot`);
    for (const object of body.objects) out.push({ cluster: c.name, object });
  }
  return out;
}

/** The one discovered destination or workload of that name (in `cluster`, when given). */
async function findDiscovered(client: Client, what: "destination" | "workload", name: string, cluster: string | undefined): Promise<Resource> {
  const kind = kindOf(what) as Kind;
  const matches = (await listAll(client, kind.path, new URLSearchParams(cluster ? { cluster } : {}))).filter((d) => d.metadata?.name === name);
  if (matches.length === 0)
    throw new ApiError(404, `no ${what} named ${name}${cluster ? ` in cluster ${cluster}` : ""}; \`meshplane get ${kind.short[0]}\` lists them`);
  if (matches.length > 1)
    throw new UsageError(`${name} is a ${what} in several clusters (${matches.map((m) => text(m.metadata?.cluster)).join(", ")}): add --cluster`);
  return matches[0] as Resource;
}

function printer(streams: Streams) {
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

function printGenerated(p: ReturnType<typeof printer>, objects: GeneratedRef[], heading = "Generated objects"): void {
  p.heading(heading);
  if (objects.length === 0) p.line("none in the latest snapshots");
  for (const o of objects) p.line(`${o.cluster}: ${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`);
}

async function describeDestination(client: Client, name: string, cluster: string | undefined, output: string): Promise<number> {
  const destination = await findDiscovered(client, "destination", name, cluster);
  const resources = await userResources(client);
  const objects = await snapshotObjects(client);
  const view = destinationDescription(destination as never, resources as never, objects);
  if (output !== "text") {
    const federatedTo = [...new Set(view.federation.map((f) => f.cluster))];
    process.stdout.write(
      formatData(
        {
          destination,
          policies: view.policies,
          access: view.access,
          virtualMeshes: view.virtualMeshes.map((v) => v.name),
          federatedTo,
          federation: view.federation,
          generated: view.generated,
        },
        output as "yaml" | "json",
      ),
    );
    return 0;
  }
  const p = printer(streamsOf());
  const spec = destination.spec as {
    name: string;
    cluster: string;
    namespace: string;
    mesh: string;
    ports: { port: number; protocol: string; name?: string }[];
    endpoints: unknown[];
    workloads: string[];
    subsets: Record<string, string[]>;
  };
  p.field("Destination", name);
  p.field("Service", `${spec.namespace}/${spec.name} in cluster ${spec.cluster}, mesh ${spec.mesh}`);
  p.field("Ports", spec.ports.map((x) => `${x.port}/${x.protocol}${x.name ? ` (${x.name})` : ""}`).join(", "));
  p.field("Endpoints", `${spec.endpoints.length}, backed by ${spec.workloads.join(", ") || "no workload"}`);
  p.field(
    "Subsets",
    Object.entries(spec.subsets)
      .map(([k, v]) => `${k}: ${v.join("|")}`)
      .join(", "),
  );

  p.heading("Policies, in acceptance order");
  if (view.policies.length === 0) p.line("none");
  for (const d of view.policies) {
    p.line(`${d.acceptanceOrder ?? "-"}. ${d.kind}/${d.name} ${p.paint(d.state)}${d.fields.length > 0 ? ` sets ${d.fields.join(", ")}` : ""}`);
    for (const e of d.errors) p.line(`     ${e}`);
  }

  p.heading("Who may call it");
  if (view.enforcedBy.length === 0) p.line("every caller: no VirtualMesh with globalAccessPolicy ENABLED includes its mesh");
  else {
    p.line(`only what AccessPolicies allow (globalAccessPolicy ENABLED by ${view.enforcedBy.map((v) => `VirtualMesh/${v}`).join(", ")})`);
    if (view.access.length === 0) p.line("no AccessPolicy selects it: nobody may call it");
    for (const d of view.access) {
      const limits = Object.entries(d.limits).map(([k, v]) => `${k} ${JSON.stringify(v)}`);
      p.line(`AccessPolicy/${d.name} ${p.paint(d.state)}: ${JSON.stringify(d.sources ?? "any source")}${limits.length > 0 ? `; ${limits.join("; ")}` : ""}`);
      for (const e of d.errors) p.line(`     ${e}`);
    }
  }

  p.heading("Federation");
  if (view.virtualMeshes.length === 0) p.line("its mesh is in no VirtualMesh");
  for (const v of view.virtualMeshes) p.line(`VirtualMesh/${v.name} ${p.paint(v.state)}`);
  if (view.federation.length === 0) p.line("not federated to any other cluster");
  for (const f of view.federation)
    p.line(`from ${f.cluster} as ${f.host}, through the east-west gateway of ${spec.cluster}${f.gateways.length > 0 ? ` (${f.gateways.join(", ")})` : ""}`);
  // Objects a policy writes for it (a VirtualService route, say) carry the policy as their parent.
  printGenerated(p, view.generated, "Generated objects (the service's own; a policy's: `meshplane describe policy NAME`)");
  return 0;
}

async function describePolicy(client: Client, kind: Kind, name: string, output: string): Promise<number> {
  const { body: r } = await client.request<Resource>("GET", `${kind.path}/${encodeURIComponent(name)}`);
  const generated = generatedBy(await snapshotObjects(client), { kind: kind.kind, name });
  if (output !== "text") {
    process.stdout.write(formatData({ resource: r, generated }, output as "yaml" | "json"));
    return 0;
  }
  const p = printer(streamsOf());
  const status = r.status ?? { state: "PENDING" };
  p.field(kind.kind, name);
  p.field("State", p.paint(status.state));
  p.field("Generation", r.metadata?.generation);
  for (const e of status.errors ?? []) p.line(p.c.red(e));
  p.heading("Destinations");
  const destinations = Object.entries(status.destinations ?? {});
  if (destinations.length === 0) p.line("none selected");
  for (const [d, s] of destinations) {
    p.line(`${d}: ${p.paint(s.state)}${s.acceptanceOrder !== undefined ? ` (acceptance order ${s.acceptanceOrder})` : ""}`);
    for (const e of s.errors ?? []) p.line(`  ${e}`);
  }
  if (status.meshes) {
    p.heading("Meshes");
    for (const [m, s] of Object.entries(status.meshes)) {
      p.line(`${m}: ${p.paint(s.state)}`);
      for (const e of s.errors ?? []) p.line(`  ${e}`);
    }
  }
  p.heading("Clusters");
  const clusters = Object.entries(status.clusters ?? {});
  if (clusters.length === 0) p.line("none yet");
  for (const [c, s] of clusters)
    p.line(
      `${c}: generation ${s.generation}, ${s.applied ? p.c.green("applied") : p.c.yellow("not applied yet")}${(s.errors ?? []).map((e) => `\n    ${e}`).join("")}`,
    );
  if (status.workloads !== undefined) p.field("\nCallers", status.workloads.length > 0 ? status.workloads.join(", ") : "every workload");
  printGenerated(p, generated);
  return reasonsOf(status).length > 0 && (status.state === "INVALID" || status.state === "FAILED") ? 1 : 0;
}

async function describeWorkload(client: Client, name: string, cluster: string | undefined, output: string): Promise<number> {
  const workload = await findDiscovered(client, "workload", name, cluster);
  const resources = (await userResources(client)).filter((r) => r.kind === "TrafficPolicy");
  // A TrafficPolicy without a sourceSelector applies to every caller; with one, its status lists the callers.
  const outbound = resources.filter((r) => (r.spec.sourceSelector === undefined ? true : (r.status?.workloads ?? []).includes(name)));
  if (output !== "text") {
    process.stdout.write(
      formatData(
        {
          workload,
          outbound: outbound.map((r) => ({ name: r.metadata?.name, state: r.status?.state, destinations: Object.keys(r.status?.destinations ?? {}) })),
        },
        output as "yaml" | "json",
      ),
    );
    return 0;
  }
  const p = printer(streamsOf());
  const spec = workload.spec as { kind: string; namespace: string; cluster: string; mesh: string; serviceAccount: string };
  p.field("Workload", name);
  p.field("Is", `${spec.kind} ${spec.namespace}/${text(workload.spec.name)} in cluster ${spec.cluster}, mesh ${spec.mesh}`);
  p.field("Identity", `service account ${spec.serviceAccount}`);
  p.heading("What applies to its outbound calls");
  if (outbound.length === 0) p.line("no TrafficPolicy");
  for (const r of outbound) {
    const destinations = Object.keys(r.status?.destinations ?? {});
    p.line(
      `TrafficPolicy/${text(r.metadata?.name)} ${p.paint(r.status?.state ?? "PENDING")}${r.spec.sourceSelector === undefined ? " (every caller)" : " (selects it)"} → ${destinations.join(", ") || "no destination"}`,
    );
  }
  return 0;
}

export async function describe(what: string, name: string, _o: unknown, command: Command): Promise<number> {
  const o = optionsOf<{ cluster?: string; output: string }>(command);
  const client = clientFor(command);
  const kind = kindOf(what);
  if (kind?.kind === "Destination") return describeDestination(client, name, o.cluster, o.output);
  if (kind?.kind === "Workload") return describeWorkload(client, name, o.cluster, o.output);
  if (kind?.user) return describePolicy(client, kind, name, o.output);
  if (what === "policy") {
    for (const k of USER_KINDS) {
      try {
        return await describePolicy(client, kindOf(k) as Kind, name, o.output);
      } catch (error) {
        if (!(error instanceof ApiError) || error.status !== 404) throw error;
      }
    }
    throw new ApiError(404, `no VirtualMesh, TrafficPolicy or AccessPolicy named ${name}`);
  }
  throw new UsageError(`describe what? destination (dest), workload (wl), policy, or a kind: vm, tp, ap — not "${what}"`);
}
