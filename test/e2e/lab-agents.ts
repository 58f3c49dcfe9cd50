import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseAllDocuments } from "yaml";
import { type LabCluster, serviceAccountIdentity, startCluster } from "../lab/cluster";
import type { ControlPlane } from "../support/control-plane";
import { bundleEntry } from "../support/bundle";
import { pathOf, seedCluster } from "../support/seed-cluster";

const ROOT = resolve(import.meta.dirname, "../..");
export const AGENT_NS = "meshplane-system";

export interface AgentProcess {
  process: ChildProcess;
  output: () => string;
  healthPort: () => Promise<number>;
  metrics: () => Promise<string>;
  stop: () => Promise<void>;
}

export interface LabAgent extends AgentProcess {
  cluster: LabCluster;
  name: string;
  /** The agent's bearer token: the apiserver maps it to the chart's ServiceAccount. */
  token: string;
  /** Starts another replica of the same agent (same identity in the cluster, another pod name). */
  replica: (podName: string) => AgentProcess;
}

/** One agent process: the bundle on plain node, as the image runs it. */
function spawnAgent(args: string[], podName: string): AgentProcess {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, POD_NAME: podName }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
  const healthPort = async () => {
    for (let i = 0; i < 600; i++) {
      const m = /"healthPort":(\d+)/.exec(out);
      if (m) return Number(m[1]);
      if (child.exitCode !== null) throw new Error(`agent exited: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`agent did not start: ${out}`);
  };
  return {
    process: child,
    output: () => out,
    healthPort,
    metrics: async () => (await fetch(`http://127.0.0.1:${await healthPort()}/metrics`)).text(),
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await new Promise((r) => child.once("exit", r));
      }
    },
  };
}

let bundle: Promise<string> | undefined;

/** The agent bundled as its Dockerfile bundles it (esbuild, ESM, minified), built once per process. */
export function agentBundle(): Promise<string> {
  bundle ??= bundleEntry("packages/agent/src/main.ts", join(mkdtempSync(join(tmpdir(), "meshplane-agent-bundle-")), "agent.mjs"), "node20");
  return bundle;
}

/** The chart rendered with helm, as an operator would install it. */
export function renderChart(values: Record<string, string>, json: Record<string, string> = {}): Record<string, unknown>[] {
  const helm = execFileSync("bash", [join(ROOT, "scripts/helm.sh")], { encoding: "utf8" }).trim();
  const args = ["template", "meshplane-agent", join(ROOT, "packages/agent/chart"), "--namespace", AGENT_NS];
  for (const [k, v] of Object.entries(values)) args.push("--set-string", `${k}=${v}`);
  for (const [k, v] of Object.entries(json)) args.push("--set-json", `${k}=${v}`);
  const out = execFileSync(helm, args, { encoding: "utf8" });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Record<string, unknown>)
    .filter(Boolean);
}

/**
 * A lab cluster seeded with a fixture, the chart's RBAC and config installed with helm's rendering,
 * and the agent running as a process under the chart's ServiceAccount identity (a static token the
 * apiserver maps to it) — so every call it makes is checked against exactly the chart's roles.
 */
export async function startLabAgent(
  cp: ControlPlane,
  adminToken: string,
  name: string,
  fixture: string,
  agentArgs: string[] = ["--poll-interval=1", "--poll-jitter=0", "--resync-interval=10"],
  /** More chart values (`--set-string`, and `--set-json` in `json`), e.g. `authoring.enabled`. */
  chart: { values?: Record<string, string>; json?: Record<string, string> } = {},
): Promise<LabAgent> {
  const agentToken = `agent-${name}-${Math.random().toString(36).slice(2)}`;
  const cluster = await startCluster({ name, tokens: [{ token: agentToken, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") }] });
  await seedCluster(cluster, fixture);
  const reg = (await (await cp.request("POST", "/v1/clusters", { token: adminToken, body: { name } })).json()) as { bootstrapToken: string };
  const jwks = JSON.stringify(await cp.signer.jwks());
  // The lab's fixtures run a default and a revisioned istiod: the agent may restart both.
  const rendered = renderChart(
    { "controlPlane.url": cp.url, "cluster.name": name, "bootstrap.token": reg.bootstrapToken, ...chart.values },
    { "trust.jwks": jwks, "certificates.istiodDeployments": '["istiod","istiod-1-24"]', ...chart.json },
  );
  await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: AGENT_NS } });
  for (const obj of rendered as { apiVersion: string; kind: string; metadata: { name: string; namespace?: string } }[]) {
    if (["Deployment", "PodDisruptionBudget", "NetworkPolicy"].includes(obj.kind)) continue; // no kubelet runs pods here
    const path = obj.kind.startsWith("ClusterRole")
      ? `/apis/rbac.authorization.k8s.io/v1/${obj.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings"}`
      : obj.kind === "Role" || obj.kind === "RoleBinding"
        ? `/apis/rbac.authorization.k8s.io/v1/namespaces/${obj.metadata.namespace ?? AGENT_NS}/${obj.kind.toLowerCase()}s`
        : pathOf(obj);
    const res = await cluster.request("POST", path, obj);
    if (!res.ok) throw new Error(`install ${obj.kind} ${obj.metadata.name}: ${res.status} ${res.body.message ?? ""}`);
  }
  // The chart's CustomResourceDefinitions are served once established, which the agent's watch needs.
  for (const crd of rendered.filter((o) => o.kind === "CustomResourceDefinition") as { metadata: { name: string } }[]) {
    await eventually(`${crd.metadata.name} established`, async () => {
      const got = await cluster.request<{ status?: { conditions?: { type: string; status: string }[] } }>(
        "GET",
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      );
      return got.body.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
    });
  }
  const dir = mkdtempSync(join(tmpdir(), `agent-${name}-`));
  const secret = rendered.find((o) => o.kind === "Secret") as { stringData: { token: string } };
  const trust = rendered.find((o) => o.kind === "ConfigMap") as { data: { "jwks.json": string } };
  writeFileSync(join(dir, "token"), secret.stringData.token);
  writeFileSync(join(dir, "jwks.json"), trust.data["jwks.json"]);
  const kubeconfig = await cluster.writeKubeconfig(agentToken, join(dir, "kubeconfig"));
  const args = [
    await agentBundle(),
    `--control-plane-url=${cp.url}`,
    `--cluster=${name}`,
    `--namespace=${AGENT_NS}`,
    `--bootstrap-token-file=${join(dir, "token")}`,
    `--trusted-keys-file=${join(dir, "jwks.json")}`,
    ...agentArgs,
    "--discovery-debounce=200",
    "--health-port=0",
    `--kubeconfig=${kubeconfig}`,
  ];
  const first = spawnAgent(args, `${name}-agent-0`);
  const replicas: AgentProcess[] = [];
  const child = first.process;
  return {
    cluster,
    name,
    token: agentToken,
    process: child,
    output: first.output,
    healthPort: first.healthPort,
    metrics: first.metrics,
    replica: (podName: string) => {
      const extra = spawnAgent(args, podName);
      replicas.push(extra);
      return extra;
    },
    async stop() {
      for (const p of [first, ...replicas]) await p.stop();
      await cluster.stop();
    },
  };
}

/** What a user does when the status asks for it: add a trust-domain alias to istiod's meshConfig. */
export async function addTrustDomainAlias(agent: { cluster: LabCluster }, configMap: string, alias: string): Promise<void> {
  const path = `/api/v1/namespaces/istio-system/configmaps/${configMap}`;
  const existing = (await agent.cluster.request("GET", path)).body as { data: { mesh: string } };
  const mesh = `${existing.data.mesh.trimEnd()}\ntrustDomainAliases: [${alias}]\n`;
  const res = await agent.cluster.request("PUT", path, { ...existing, data: { ...existing.data, mesh } });
  if (!res.ok) throw new Error(`update ${configMap}: ${res.status}`);
}

/** Polls `check` until it returns a value (not undefined) or the time runs out. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}`);
}

interface PodTemplate {
  spec: {
    serviceAccountName?: string;
    containers: { args?: string[]; env?: { name: string; value?: string }[]; volumeMounts?: { name: string; mountPath: string }[] }[];
    volumes?: { name: string; secret?: { secretName: string }; configMap?: { name: string } }[];
  };
}

export interface DeploymentRunner {
  /** The first agent process (replica) of the Deployment's current template, once there is one. */
  current(): AgentProcess | undefined;
  /** How many times a pod was started (a new template restarts it). */
  starts(): number;
  stop(): Promise<void>;
}

/**
 * The lab has no kubelet, so nothing runs the Pods of the agent's Deployment that `helm install`
 * creates. This stands in for one, for that Deployment only: it watches the Deployment and runs its
 * pod template's container as the agent bundle (as the image does), with the template's args, the
 * Secret and ConfigMap volumes it mounts written to files, and the Deployment's ServiceAccount
 * identity (`token`, which the apiserver maps to it), one process per replica. A new template (helm
 * upgrade) restarts them; a deleted Deployment stops them. Only the health port is changed (to a free one).
 */
export function runAgentDeployment(cluster: LabCluster, token: string, namespace = AGENT_NS, name = "meshplane-agent"): DeploymentRunner {
  let running: { generation: number; pods: AgentProcess[] } | undefined;
  let starts = 0;
  let stopped = false;
  const dir = mkdtempSync(join(tmpdir(), `kubelet-${cluster.name}-`));
  const materialise = async (template: PodTemplate, into: string): Promise<Map<string, string>> => {
    const mounts = new Map<string, string>();
    const container = template.spec.containers[0];
    for (const mount of container?.volumeMounts ?? []) {
      const volume = template.spec.volumes?.find((v) => v.name === mount.name);
      const target = join(into, mount.name);
      mkdirSync(target, { recursive: true });
      if (volume?.secret) {
        const secret = (await cluster.request<{ data?: Record<string, string> }>("GET", `/api/v1/namespaces/${namespace}/secrets/${volume.secret.secretName}`))
          .body;
        for (const [key, value] of Object.entries(secret.data ?? {})) writeFileSync(join(target, key), Buffer.from(value, "base64"));
      } else if (volume?.configMap) {
        const map = (await cluster.request<{ data?: Record<string, string> }>("GET", `/api/v1/namespaces/${namespace}/configmaps/${volume.configMap.name}`))
          .body;
        for (const [key, value] of Object.entries(map.data ?? {})) writeFileSync(join(target, key), value);
      }
      mounts.set(mount.mountPath, target);
    }
    return mounts;
  };
  const tick = async () => {
    const res = await cluster.request<{ metadata: { generation: number }; spec: { replicas?: number; template: PodTemplate } }>(
      "GET",
      `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
    );
    if (res.status === 404) {
      await Promise.all((running?.pods ?? []).map((p) => p.stop()));
      running = undefined;
      return;
    }
    if (!res.ok || running?.generation === res.body.metadata.generation) return;
    await Promise.all((running?.pods ?? []).map((p) => p.stop()));
    const template = res.body.spec.template;
    const pod = join(dir, `pod-${++starts}`);
    const mounts = await materialise(template, pod);
    const args = (template.spec.containers[0]?.args ?? []).map((arg) => {
      if (arg.startsWith("--health-port=")) return "--health-port=0";
      let out = arg;
      for (const [path, file] of mounts) out = out.replace(path, file);
      return out;
    });
    const kubeconfig = await cluster.writeKubeconfig(token, join(pod, "kubeconfig"));
    const bundled = await agentBundle();
    const replicas = res.body.spec.replicas ?? 1;
    running = {
      generation: res.body.metadata.generation,
      pods: Array.from({ length: replicas }, (_, i) => spawnAgent([bundled, ...args, `--kubeconfig=${kubeconfig}`], `${name}-${starts}-${i}`)),
    };
  };
  let loop = Promise.resolve();
  const timer = setInterval(() => {
    loop = loop.then(() => (stopped ? undefined : tick())).catch(() => undefined);
  }, 300);
  return {
    current: () => running?.pods[0],
    starts: () => starts,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await loop;
      await Promise.all((running?.pods ?? []).map((p) => p.stop()));
    },
  };
}
