/**
 * `cluster register NAME --install` (and `cluster bootstrap-token NAME --install`): installs the
 * cluster's agent with helm against the current kube context (or the one named), then waits until the
 * agent has registered with the control plane and reported what it discovered, showing each step.
 *
 * The bootstrap token goes to helm in a values file readable by this user alone (never on a command
 * line, where `ps` would show it), removed when helm is done. The chart is the one shipped with this
 * CLI, so the agent installed matches the CLI that installed it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { Client } from "./client";
import { UsageError, seconds } from "./config";
import { colours, type Streams } from "./output";
import { progress } from "./progress";

export interface InstallOptions {
  helm?: string;
  chart?: string;
  namespace: string;
  kubeContext?: string;
  kubeconfig?: string;
  values: string[];
  timeout: string;
}

/** Where helm and the chart are, checked before anything is registered. */
export interface InstallPlan {
  helm: string;
  chart: string;
  namespace: string;
  kubeArgs: string[];
  values: string[];
  timeoutMs: number;
  /** The kube context helm will use, as far as the kubeconfig says (for the user to see). */
  context: string;
}

export const RELEASE = "meshplane-agent";

/** The chart beside the bundle (dist/chart, copied there by scripts/build-cli.ts), or the repository's when run from source. */
export function bundledChart(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [join(here, "chart"), join(here, "..", "chart"), join(here, "..", "..", "agent", "chart")]) {
    if (existsSync(join(candidate, "Chart.yaml"))) return candidate;
  }
  return undefined;
}

function onPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  if (command.includes("/")) return existsSync(command) ? command : undefined;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

/** The context helm will talk to: --kube-context, else the first kubeconfig file's current-context. */
function kubeContext(o: InstallOptions, env: NodeJS.ProcessEnv): string {
  if (o.kubeContext) return o.kubeContext;
  const files = o.kubeconfig ? [o.kubeconfig] : (env.KUBECONFIG ?? join(homedir(), ".kube", "config")).split(delimiter).filter(Boolean);
  for (const file of files) {
    try {
      const current = (parse(readFileSync(file, "utf8")) as { "current-context"?: string } | null)?.["current-context"];
      if (current) return current;
    } catch {
      // unreadable or absent: helm will say so
    }
  }
  return "(none set)";
}

export function planInstall(o: InstallOptions, env: NodeJS.ProcessEnv): InstallPlan {
  const helmName = o.helm ?? env.MESHPLANE_HELM ?? "helm";
  const helm = onPath(helmName, env);
  if (!helm)
    throw new UsageError(
      `helm not found (${helmName}): install helm 3 (https://helm.sh/docs/intro/install/), or pass --helm PATH; or leave out --install and run the printed helm line yourself`,
    );
  const chart = o.chart ?? bundledChart();
  if (!chart || !existsSync(join(chart, "Chart.yaml"))) throw new UsageError(`no agent chart at ${chart ?? "(none shipped with this CLI)"}: pass --chart DIR`);
  for (const file of o.values) if (!existsSync(file)) throw new UsageError(`--values ${file}: no such file`);
  const timeoutS = seconds("--timeout", o.timeout);
  const kubeArgs = [...(o.kubeconfig ? ["--kubeconfig", o.kubeconfig] : []), ...(o.kubeContext ? ["--kube-context", o.kubeContext] : [])];
  return {
    helm,
    chart,
    namespace: o.namespace,
    kubeArgs,
    values: o.values.map((v) => (isAbsolute(v) ? v : join(process.cwd(), v))),
    timeoutMs: timeoutS * 1000,
    context: kubeContext(o, env),
  };
}

function runHelm(helm: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(helm, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", (error) => resolve({ code: -1, output: `${output}${error.message}` }));
    child.once("close", (code) => resolve({ code: code ?? -1, output }));
  });
}

/**
 * `helm upgrade --install` with the bootstrap values in a 0600 file; the user's values files come
 * after, so they can add to them. When helm fails, the cluster is put back as it was: a release that
 * did not exist before is uninstalled, one that did is rolled back to its previous revision.
 */
export async function helmInstall(plan: InstallPlan, helmValues: unknown, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string; undone?: string }> {
  const scope = ["--namespace", plan.namespace, ...plan.kubeArgs];
  const existed = (await runHelm(plan.helm, ["status", RELEASE, ...scope], env)).code === 0;
  const dir = mkdtempSync(join(tmpdir(), "meshplane-install-"));
  let result: { code: number; output: string };
  try {
    const file = join(dir, "bootstrap-values.json");
    writeFileSync(file, JSON.stringify(helmValues), { mode: 0o600 });
    result = await runHelm(
      plan.helm,
      ["upgrade", "--install", RELEASE, plan.chart, "--create-namespace", "-f", file, ...plan.values.flatMap((v) => ["-f", v]), ...scope],
      env,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (result.code === 0) return result;
  const undo = existed ? ["rollback", RELEASE, ...scope] : ["uninstall", RELEASE, ...scope];
  const undone = await runHelm(plan.helm, undo, env);
  // Nothing to undo when helm failed before creating the release (an unreachable cluster, a bad values file).
  const nothing = /not found/i.test(undone.output) || /cluster unreachable/i.test(result.output);
  return {
    ...result,
    undone:
      undone.code === 0
        ? existed
          ? "the release was rolled back to its previous revision"
          : "the release was uninstalled"
        : nothing
          ? "nothing was installed"
          : `undoing it failed too: ${undone.output.trim()}`,
  };
}

interface AgentState {
  registered: boolean;
  discovered: boolean;
  meshes: string[];
  appliedGeneration: number;
  generation: number;
}

async function agentState(client: Client, name: string): Promise<AgentState> {
  const path = `/v1/clusters/${encodeURIComponent(name)}`;
  const cluster = (await client.request<{ state: string }>("GET", path)).body;
  const snapshot = (await client.request<{ discoveryReported?: boolean; appliedGeneration: number; generation: number }>("GET", `${path}/snapshot`)).body;
  const meshes = snapshot.discoveryReported
    ? (await client.request<{ items: { metadata: { name: string } }[] }>("GET", `/v1/meshes?cluster=${encodeURIComponent(name)}&limit=50`)).body.items.map(
        (m) => m.metadata.name,
      )
    : [];
  return {
    registered: cluster.state === "registered",
    discovered: snapshot.discoveryReported === true,
    meshes,
    appliedGeneration: snapshot.appliedGeneration,
    generation: snapshot.generation,
  };
}

/**
 * Waits for the agent: registered, then its first discovery report. Returns the exit code; on a
 * timeout, says where to look in the cluster.
 */
export async function waitForAgent(client: Client, streams: Streams, name: string, plan: InstallPlan, now = () => Date.now()): Promise<number> {
  const c = colours(streams.err, streams.env);
  const display = await progress(streams);
  const deadline = now() + plan.timeoutMs;
  const started = now();
  for (let round = 0; ; round++) {
    const s = await agentState(client, name);
    const elapsed = c.dim(`(${Math.round((now() - started) / 1000)}s)`);
    const meshes =
      s.meshes.length === 0 ? "no mesh found yet (install Istio or OSM; discovery follows)" : `${s.meshes.length} mesh(es): ${s.meshes.join(", ")}`;
    display.show([
      s.registered
        ? { key: "agent", text: `${c.green("✔")} agent registered` }
        : { key: "agent", text: `${c.yellow("…")} agent: waiting for it to start and register`, detail: elapsed },
      !s.registered
        ? { key: "discovery", text: "  discovery: after registration" }
        : s.discovered
          ? { key: "discovery", text: `${c.green("✔")} discovery reported: ${meshes}` }
          : { key: "discovery", text: `${c.yellow("…")} discovery: waiting for the first report`, detail: elapsed },
    ]);
    if (s.registered && s.discovered) {
      display.done();
      streams.err.write(
        `cluster ${name} is connected${s.generation > 0 ? `; generation ${s.generation} published, ${s.appliedGeneration} applied` : ""}. Next: \`meshplane get meshes --cluster ${name}\`, \`meshplane check\`\n`,
      );
      return 0;
    }
    if (now() > deadline) {
      display.done();
      const ns = plan.namespace;
      streams.err.write(
        c.red(`timed out after ${Math.round(plan.timeoutMs / 1000)} s waiting for the agent to ${s.registered ? "report discovery" : "register"}.\n`) +
          `  Look at it in the cluster:  kubectl -n ${ns} get pods   kubectl -n ${ns} logs deploy/${RELEASE}\n` +
          `  It must reach the control plane at its URL; a used or expired bootstrap token needs \`meshplane cluster bootstrap-token ${name} --install\`.\n`,
      );
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 250 * 2 ** Math.min(round, 3))));
  }
}
