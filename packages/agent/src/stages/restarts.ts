import type { CertificateDirective } from "@meshplane/core";
import { CACERTS_ANNOTATIONS, type CacertsMarks, CertificateError, cacertsRef } from "../certificates/cacerts";
import { type MeshMemory, meshFailed } from "../certificates/mesh-memory";
import { RESTARTED_AT, type WorkloadRef } from "../discovery/mesh-workloads";
import { failedWith } from "../kube/failure";
import type { ObjectRef } from "../kube/kube";
import type { StageEnv } from "./env";

type RestartEnv = Pick<StageEnv, "kube" | "metrics" | "log" | "certificates" | "meshWorkloads">;

type Deployment = {
  metadata?: { name?: string; generation?: number };
  spec?: { replicas?: number };
  status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number };
};

export interface RestartInput {
  /** Each mesh as the certificate stage left it this cycle. */
  meshes: ReadonlyMap<string, MeshMemory>;
  now: Date;
}

export interface RestartOutput {
  /** The same meshes, with their restart progress, notes and failures. */
  meshes: Map<string, MeshMemory>;
}

/**
 * The restart stage (docs/agent.md#stages, item 7). istiod chooses its CA when it starts and refuses
 * a changed root bundle until restarted, while a renewed intermediate under the same roots reaches it
 * through its file watcher. So after cacerts got another root bundle (or its first one) the istiod
 * Deployments of the mesh's namespace are restarted; then, when both the directive and this agent
 * allow it, the mesh's workloads are restarted one at a time, a pause apart, once istiod has rolled
 * out. Progress lives on cacerts and on the workloads' templates, so a restarted agent continues
 * where it stopped. Failures are per mesh (meshFailed) and retried after a backoff.
 */
export async function restartStage(env: RestartEnv, input: RestartInput): Promise<RestartOutput> {
  const meshes = new Map<string, MeshMemory>();
  for (const [mesh, known] of input.meshes) {
    if (known.result.state !== "issued") {
      meshes.set(mesh, known);
      continue;
    }
    // This stage's own copy: restartMesh records its progress on it.
    const mem: MeshMemory = { ...known, ...(known.marks ? { marks: { ...known.marks } } : {}) };
    try {
      if (mem.marks?.rootsChangedAt) await restartMesh(env, mem, mem.marks, mem.marks.rootsChangedAt, input.now);
      // Both the certificate and its restarts went through: a later failure backs off from the start.
      meshes.set(mesh, { ...mem, failures: 0, retryAt: 0 });
    } catch (error) {
      meshes.set(mesh, meshFailed(env, mem, error, input.now));
    }
  }
  return { meshes };
}

async function restartMesh(env: RestartEnv, mem: MeshMemory, marks: CacertsMarks, change: string, now: Date): Promise<void> {
  const d = mem.directive;
  // An issued result carries only this stage's notes; each cycle says afresh what still holds.
  const { error: _note, ...issued } = mem.result;
  mem.result = issued;
  if (marks.istiodRestartedFor !== change) {
    await restartIstiod(env, d, change, now);
    marks.istiodRestartedFor = change;
  }
  if (marks.workloadsRestartedFor === change) return;
  const blocked = !d.autoRestartPods
    ? "VirtualMesh does not set autoRestartPods"
    : !env.certificates.autoRestartPods
      ? "the VirtualMesh sets autoRestartPods, but this agent's chart value certificates.autoRestartPods.enabled is false"
      : undefined;
  if (blocked) {
    mem.result = {
      ...mem.result,
      error: `the mesh's roots changed at ${change}; workloads started before keep their old certificates until they restart (${blocked})`,
    };
    return;
  }
  const step = await rollNextWorkload(env, d, change, now);
  if (step.done) marks.workloadsRestartedFor = change;
  else if (step.waiting) mem.result = { ...mem.result, error: step.waiting };
}

async function istiods(env: RestartEnv, namespace: string): Promise<Deployment[]> {
  const all = (await env.kube.list("apps/v1", "Deployment", "", namespace)) as Deployment[];
  // The rule discovery uses for an Istio control plane (docs/resources.md#discovery); revisions are istiod-<rev>.
  return all.filter((x) => x.metadata?.name?.startsWith("istiod"));
}

async function restartIstiod(env: RestartEnv, d: CertificateDirective, change: string, now: Date): Promise<void> {
  const names = (await istiods(env, d.secretNamespace)).map((x) => x.metadata?.name as string).sort();
  for (const name of names) {
    await restart(
      env,
      now,
      { apiVersion: "apps/v1", kind: "Deployment", namespace: d.secretNamespace, name },
      `the agent may patch only the istiod Deployments named in the chart value certificates.istiodDeployments: add "${name}" (and "${d.secretNamespace}" to certificates.namespaces if it is not there)`,
    );
    env.metrics.restarted("istiod");
  }
  await mark(env, d, { [CACERTS_ANNOTATIONS.istiodRestartedFor]: change });
  env.log.info("restarted istiod so it loads the new roots", { mesh: d.mesh, namespace: d.secretNamespace, deployments: names });
}

type RollStep = { done: true; waiting?: undefined } | { done: false; waiting?: string };

/** Restarts the next workload when the pause allows; done when none is left, else why it waits (if it must). */
async function rollNextWorkload(env: RestartEnv, d: CertificateDirective, change: string, now: Date): Promise<RollStep> {
  const pending = (await istiods(env, d.secretNamespace)).filter((x) => !rolledOut(x));
  if (pending.length > 0)
    return { done: false, waiting: `waiting for ${pending.map((x) => x.metadata?.name).join(", ")} to roll out before restarting workloads` };
  const workloads = env.meshWorkloads(d.mesh);
  if (workloads === undefined) return { done: false, waiting: "waiting for discovery to list the cluster before restarting workloads" };
  const todo = workloads.filter((w) => !(since(w) >= Date.parse(change))).sort((a, b) => key(a).localeCompare(key(b)));
  const next = todo[0];
  if (next === undefined) {
    await mark(env, d, { [CACERTS_ANNOTATIONS.workloadsRestartedFor]: change });
    env.log.info("restarted every workload of the mesh", { mesh: d.mesh, workloads: workloads.length });
    return { done: true };
  }
  const last = Math.max(...workloads.map(since).filter((t) => t >= Date.parse(change)));
  if (now.getTime() - last < env.certificates.restartPauseMs) return { done: false };
  await restart(
    env,
    now,
    { apiVersion: "apps/v1", kind: next.kind, namespace: next.namespace, name: next.name },
    `the agent may restart workloads only with the chart value certificates.autoRestartPods.enabled=true, in the namespaces of certificates.autoRestartPods.namespaces (add "${next.namespace}") and, when certificates.autoRestartPods.workloads names any, only those (add "${next.name}")`,
  );
  env.metrics.restarted("workload");
  env.log.info("restarted a workload for the new roots", {
    mesh: d.mesh,
    kind: next.kind,
    namespace: next.namespace,
    name: next.name,
    remaining: todo.length - 1,
  });
  return { done: false };
}

const since = (w: WorkloadRef) => (w.restartedAt === undefined ? Number.NaN : Date.parse(w.restartedAt));
const key = (w: WorkloadRef) => `${w.namespace}/${w.kind}/${w.name}`;

/** Done as `kubectl rollout status` judges it: the controller saw the change and every replica is new and available. */
function rolledOut(x: Deployment): boolean {
  const want = x.spec?.replicas ?? 1;
  const s = x.status ?? {};
  if ((s.observedGeneration ?? 0) < (x.metadata?.generation ?? 0)) return false;
  return (s.updatedReplicas ?? 0) >= want && (s.replicas ?? 0) <= (s.updatedReplicas ?? 0) && (s.availableReplicas ?? 0) >= (s.updatedReplicas ?? 0);
}

async function restart(env: RestartEnv, now: Date, ref: ObjectRef, forbidden: string): Promise<void> {
  try {
    await env.kube.patch(ref, { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: now.toISOString() } } } } });
  } catch (error) {
    const what = `cannot restart ${ref.kind} ${ref.namespace}/${ref.name}: ${(error as Error).message}`;
    throw new CertificateError(failedWith(error, "forbidden") ? `${what} (${forbidden})` : what, { cause: error });
  }
}

async function mark(env: RestartEnv, d: CertificateDirective, annotations: Record<string, string>): Promise<void> {
  await env.kube.patch(cacertsRef(d), { metadata: { annotations } });
}
