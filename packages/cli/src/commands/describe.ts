/**
 * `describe destination|policy|workload|mesh NAME`: the questions users ask most, answered from the API.
 * A destination: every policy that applies to it in acceptance order (the fields each sets, its
 * conflicts), who may call it, where it is federated, its generated objects per cluster, and its
 * golden signals with the changes that reached it (describe-signals.ts). A
 * policy: its state per destination and cluster, and its generated objects; when a cluster authored
 * it, where it came from (describe-source.ts). A workload: its data
 * plane and what applies to its outbound calls. A mesh (describe-mesh.ts): its data plane.
 */
import { dataPlaneFacts, describeDestination as destinationDescription, generatedBy, reasonsOf } from "@meshplane/core";
import type { Command } from "commander";
import { ApiError, type Client } from "../client";
import { UsageError } from "../config";
import { type Kind, kindOf, text } from "../kinds";
import { formatData } from "../output";
import { clientFor, optionsOf, streamsOf } from "../runtime";
import { describeMesh } from "./describe-mesh";
import { printSource } from "./describe-source";
import { fetchSignals, printSignals } from "./describe-signals";
import { windowSeconds } from "./signals";
import { type Resource, USER_KINDS, findDiscovered, printGenerated, printer, snapshotObjects, userResources } from "./describe-parts";

/** Its data plane, and the waypoint serving it when it has one or is ambient (docs/ambient.md#what-discovery-sees). */
function printDataPlane(p: ReturnType<typeof printer>, spec: Record<string, unknown>): void {
  const facts = dataPlaneFacts(spec);
  p.field("Data plane", facts.dataPlane);
  if (facts.waypoint !== undefined) p.field("Waypoint", facts.waypoint);
}

async function describeDestination(client: Client, name: string, o: { cluster?: string; output: string; window: string }): Promise<number> {
  const { cluster, output } = o;
  windowSeconds(o.window);
  const destination = await findDiscovered(client, "destination", name, cluster);
  const resources = await userResources(client);
  const objects = await snapshotObjects(client);
  const signals = await fetchSignals(client, name, o.window);
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
          ...("metrics" in signals ? { signals: signals.metrics } : { signalsError: signals.error }),
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
  printDataPlane(p, destination.spec);

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
  printSignals(p, o.window, signals);
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
  printSource(p, kind.kind, r.metadata);
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
  printDataPlane(p, workload.spec);
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
  const o = optionsOf<{ cluster?: string; output: string; window: string }>(command);
  const client = clientFor(command);
  const kind = kindOf(what);
  if (kind?.kind === "Destination") return describeDestination(client, name, o);
  if (kind?.kind === "Workload") return describeWorkload(client, name, o.cluster, o.output);
  if (kind?.kind === "Mesh") return describeMesh(client, name, o.cluster, o.output);
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
  throw new UsageError(`describe what? destination (dest), workload (wl), mesh, policy, or a kind: vm, tp, ap — not "${what}"`);
}
