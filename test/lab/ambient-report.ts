/**
 * What `npm run lab -- --ambient` prints once its policies are applied: what a user should look at to
 * see the ambient data plane and what meshplane made of it — the `meshplane` command's answers, the
 * HTTPRoutes and AuthorizationPolicies each agent applied, read from its cluster's kube-apiserver,
 * and each policy's status.
 */
import { stringify } from "yaml";
import type { LabAgent } from "../e2e/lab-agents";
import type { Cli } from "../support/cli";
import { AMBIENT_MESHES, type Resource } from "./ambient-lab";

/** The kinds of generated object the report reads back from each cluster: Gateway API routes and Istio authorization. */
export const APPLIED_KINDS = [
  { kind: "HTTPRoute", path: "/apis/gateway.networking.k8s.io/v1/httproutes" },
  { kind: "AuthorizationPolicy", path: "/apis/security.istio.io/v1/authorizationpolicies" },
] as const;

/** An object an agent applied, with the parents meshplane names on it (`Kind/name, …`). */
export interface Applied {
  kind: string;
  namespace: string;
  name: string;
  parents: string;
  spec: unknown;
}

type Listed = { metadata: { name: string; namespace: string; annotations?: Record<string, string> }; spec: unknown };

/** The HTTPRoutes and AuthorizationPolicies meshplane's agent applied in `agent`'s cluster, as its kube-apiserver holds them. */
export async function appliedObjects(agent: LabAgent): Promise<Applied[]> {
  const out: Applied[] = [];
  for (const { kind, path } of APPLIED_KINDS) {
    const res = await agent.cluster.request<{ items?: Listed[] }>("GET", `${path}?labelSelector=app.kubernetes.io%2Fmanaged-by%3Dmeshplane`);
    for (const o of res.body.items ?? []) {
      const named = JSON.parse(o.metadata.annotations?.["meshplane.dev/parents"] ?? "[]") as { kind: string; name: string }[];
      const parents = named.map((p) => `${p.kind}/${p.name}`).join(", ");
      out.push({ kind, namespace: o.metadata.namespace, name: o.metadata.name, parents, spec: o.spec });
    }
  }
  return out;
}

const indent = (text: string, by = "  ") =>
  text
    .trimEnd()
    .split("\n")
    .map((l) => by + l)
    .join("\n");

/** What `agent` applied, each object with its parents and its spec as YAML. */
async function appliedSection(agent: LabAgent): Promise<string> {
  const listed = (await appliedObjects(agent)).map((o) => `${o.kind} ${o.namespace}/${o.name}   (from ${o.parents})\n${indent(stringify(o.spec), "    ")}`);
  return `In ${agent.name}'s kube-apiserver, applied by its agent:\n${indent(listed.join("\n") || "nothing")}`;
}

/**
 * The report, as text: `meshplane get wl`, `get dest` per namespace, `describe mesh` of both meshes,
 * the objects of `appliedObjects` per cluster, and `meshplane describe policy` of each of `resources`
 * (their statuses). `cli` runs the `meshplane` command against the lab's control plane with `env`;
 * the commands run at once (each is a process that only reads) and print in this order.
 */
export async function ambientReport(cli: Cli, env: Record<string, string>, agents: LabAgent[], resources: Resource[]): Promise<string> {
  const run = async (args: string[]) => {
    const r = await cli.run(args, { env });
    return `$ meshplane ${args.join(" ")}\n${indent(r.stdout + r.stderr)}`;
  };
  const sections = await Promise.all([
    run(["get", "wl"]),
    // One namespace at a time: the whole list is wider than a table's 160 columns and would be cut.
    ...["bookinfo", "payments"].map((namespace) => run(["get", "dest", "--namespace", namespace])),
    ...AMBIENT_MESHES.map((mesh) => run(["describe", "mesh", mesh])),
    ...agents.map(appliedSection),
    ...resources.map((r) => run(["describe", "policy", r.metadata.name])),
  ]);
  return sections.join("\n\n");
}
