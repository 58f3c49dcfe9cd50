import type { CertificateDirective } from "@meshplane/core";
import { CACERTS_ANNOTATIONS, type CacertsMarks, CertificateError, cacertsRef } from "../certificates/cacerts";
import { meshFailed } from "./certificates";
import type { CycleContext, MeshMemory, Stage, WorkloadRef } from "../loop/cycle";
import { KubeError, type ObjectRef } from "../kube/kube";

/** The pod-template annotation whose change makes a controller replace its pods (as `kubectl rollout restart` does). */
export const RESTARTED_AT = "meshplane.dev/restarted-at";

type Deployment = { metadata?: { name?: string; generation?: number }; spec?: { replicas?: number }; status?: { observedGeneration?: number; replicas?: number; updatedReplicas?: number; availableReplicas?: number } };

/**
 * The restart stage. istiod chooses its CA when it starts and refuses a changed root bundle until
 * restarted, while a renewed intermediate under the same roots reaches it through its file watcher.
 * So after cacerts got another root bundle (or its first one) the istiod Deployments of the mesh's
 * namespace are restarted; then, when both the directive and this agent allow it, the mesh's
 * workloads are restarted one at a time, a pause apart, once istiod has rolled out. Progress lives on
 * cacerts and on the workloads' templates, so a restarted agent continues where it stopped. Failures
 * are per mesh (meshFailed) and retried after a backoff.
 */
export const restartStage: Stage = async (ctx) => {
  for (const mem of ctx.memory.meshes.values()) {
    if (mem.result.state !== "issued") continue;
    try {
      if (mem.marks?.rootsChangedAt) await restartMesh(ctx, mem, mem.marks, mem.marks.rootsChangedAt);
      // Both the certificate and its restarts went through: a later failure backs off from the start.
      mem.failures = 0;
      mem.retryAt = 0;
    } catch (error) {
      meshFailed(ctx, mem, error);
    }
  }
};

async function restartMesh(ctx: CycleContext, mem: MeshMemory, marks: CacertsMarks, change: string): Promise<void> {
  const d = mem.directive;
  // An issued result carries only this stage's notes; each cycle says afresh what still holds.
  const { error: _note, ...issued } = mem.result;
  mem.result = issued;
  if (marks.istiodRestartedFor !== change) {
    await restartIstiod(ctx, d, change);
    marks.istiodRestartedFor = change;
  }
  if (marks.workloadsRestartedFor === change) return;
  const blocked = !d.autoRestartPods
    ? "VirtualMesh does not set autoRestartPods"
    : !ctx.deps.certificates.autoRestartPods
      ? "the VirtualMesh sets autoRestartPods, but this agent's chart value certificates.autoRestartPods.enabled is false"
      : undefined;
  if (blocked) {
    mem.result = { ...mem.result, error: `the mesh's roots changed at ${change}; workloads started before keep their old certificates until they restart (${blocked})` };
    return;
  }
  const step = await rollNextWorkload(ctx, d, change);
  if (step.done) marks.workloadsRestartedFor = change;
  else if (step.waiting) mem.result = { ...mem.result, error: step.waiting };
}

async function istiods(ctx: CycleContext, namespace: string): Promise<Deployment[]> {
  const all = (await ctx.deps.kube.list("apps/v1", "Deployment", "", namespace)) as Deployment[];
  // The rule discovery uses for an Istio control plane (API.md §3); revisions are istiod-<rev>.
  return all.filter((x) => x.metadata?.name?.startsWith("istiod"));
}

async function restartIstiod(ctx: CycleContext, d: CertificateDirective, change: string): Promise<void> {
  const names = (await istiods(ctx, d.secretNamespace)).map((x) => x.metadata?.name as string).sort();
  for (const name of names) {
    await restart(ctx, { apiVersion: "apps/v1", kind: "Deployment", namespace: d.secretNamespace, name }, `the agent may patch only the istiod Deployments named in the chart value certificates.istiodDeployments: add "${name}" (and "${d.secretNamespace}" to certificates.namespaces if it is not there)`);
    ctx.deps.metrics.restarted("istiod");
  }
  await mark(ctx, d, { [CACERTS_ANNOTATIONS.istiodRestartedFor]: change });
  ctx.deps.log.info("restarted istiod so it loads the new roots", { mesh: d.mesh, namespace: d.secretNamespace, deployments: names });
}

type RollStep = { done: true; waiting?: undefined } | { done: false; waiting?: string };

/** Restarts the next workload when the pause allows; done when none is left, else why it waits (if it must). */
async function rollNextWorkload(ctx: CycleContext, d: CertificateDirective, change: string): Promise<RollStep> {
  const pending = (await istiods(ctx, d.secretNamespace)).filter((x) => !rolledOut(x));
  if (pending.length > 0) return { done: false, waiting: `waiting for ${pending.map((x) => x.metadata?.name).join(", ")} to roll out before restarting workloads` };
  const workloads = ctx.deps.meshWorkloads(d.mesh);
  if (workloads === undefined) return { done: false, waiting: "waiting for discovery to list the cluster before restarting workloads" };
  const todo = workloads.filter((w) => !(since(w) >= Date.parse(change))).sort((a, b) => key(a).localeCompare(key(b)));
  const next = todo[0];
  if (next === undefined) {
    await mark(ctx, d, { [CACERTS_ANNOTATIONS.workloadsRestartedFor]: change });
    ctx.deps.log.info("restarted every workload of the mesh", { mesh: d.mesh, workloads: workloads.length });
    return { done: true };
  }
  const last = Math.max(...workloads.map(since).filter((t) => t >= Date.parse(change)));
  if (ctx.now.getTime() - last < ctx.deps.certificates.restartPauseMs) return { done: false };
  await restart(ctx, { apiVersion: "apps/v1", kind: next.kind, namespace: next.namespace, name: next.name }, `the agent may restart workloads only with the chart value certificates.autoRestartPods.enabled=true, in the namespaces of certificates.autoRestartPods.namespaces (add "${next.namespace}") and, when certificates.autoRestartPods.workloads names any, only those (add "${next.name}")`);
  ctx.deps.metrics.restarted("workload");
  ctx.deps.log.info("restarted a workload for the new roots", { mesh: d.mesh, kind: next.kind, namespace: next.namespace, name: next.name, remaining: todo.length - 1 });
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

async function restart(ctx: CycleContext, ref: ObjectRef, forbidden: string): Promise<void> {
  try {
    await ctx.deps.kube.patch(ref, { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: ctx.now.toISOString() } } } } });
  } catch (error) {
    const what = `cannot restart ${ref.kind} ${ref.namespace}/${ref.name}: ${(error as Error).message}`;
    throw new CertificateError(error instanceof KubeError && error.status === 403 ? `${what} (${forbidden})` : what, { cause: error });
  }
}

async function mark(ctx: CycleContext, d: CertificateDirective, annotations: Record<string, string>): Promise<void> {
  await ctx.deps.kube.patch(cacertsRef(d), { metadata: { annotations } });
}
