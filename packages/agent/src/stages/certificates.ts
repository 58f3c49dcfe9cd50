import { type CertificateDirective, type CertificateResult, canonicalJson } from "@meshplane/core";
import { ownedBy } from "./apply";
import { backoffMs } from "../loop/backoff";
import {
  type CacertsMarks,
  type SecretObject,
  CertificateError,
  cacertsRef,
  cacertsSecret,
  issuedResult,
  marksOf,
  materialOf,
  renewalReason,
  rootFingerprints,
  sameList,
} from "../certificates/cacerts";
import type { CycleContext, MeshMemory, Stage } from "../loop/cycle";
import { issueIntermediate } from "../certificates/issue";
import { KubeError } from "../kube/kube";

// A refused CSR or a missing permission needs someone to act; retrying every poll would only add load.
const RETRY = { baseMs: 10_000, capMs: 10 * 60_000 };

/**
 * The certificate stage (ARCHITECTURE.md step 6). For each directive of the applied snapshot, keeps
 * the mesh's `cacerts` Secret holding an intermediate issued as the directive says, and asks for a new
 * one (renewalReason) when it does not. A `cacerts` without meshplane's owner labels is never touched
 * unless the agent may adopt it. Every failure is per mesh — reported, counted, retried after a
 * growing backoff (see `due`) — and never stops the other meshes or the loop.
 */
export const certificateStage: Stage = async (ctx) => {
  const meshes = new Map<string, MeshMemory>();
  for (const d of ctx.memory.directives) {
    const known = ctx.memory.meshes.get(d.mesh);
    const mem: MeshMemory = known ? { ...known, directive: d } : { directive: d, result: { mesh: d.mesh, state: "pending" }, failures: 0, retryAt: 0 };
    meshes.set(d.mesh, mem);
    if (!ctx.deps.certificates.enabled) {
      mem.result = { mesh: d.mesh, state: "failed", error: "certificate management is turned off in this agent (chart value certificates.enabled=false): cacerts is left as it is" };
    } else if (due(ctx, known, d)) {
      await reconcile(ctx, mem);
    }
  }
  // A mesh that left its VirtualMesh keeps its cacerts: removing it would break the mesh's mTLS.
  ctx.memory.meshes = meshes;
};

/**
 * A mesh is looked at when it is new or its directive changed (the control plane asks for something
 * else: try at once); otherwise not while it backs off after a failure, and then on a new snapshot, a
 * resync, or when its retry is due.
 */
function due(ctx: CycleContext, known: MeshMemory | undefined, d: CertificateDirective): boolean {
  if (known === undefined || canonicalJson(known.directive) !== canonicalJson(d)) return true;
  if (ctx.now.getTime() < known.retryAt) return false;
  return ctx.applyMode !== "none" || known.result.state === "failed";
}

async function reconcile(ctx: CycleContext, mem: MeshMemory): Promise<void> {
  try {
    const { result, marks } = await ensureCacerts(ctx, mem.directive);
    // The failure count is reset by the restart stage, once the mesh's restarts went through too.
    mem.result = result;
    mem.marks = marks;
  } catch (error) {
    // Outside the namespaces the chart's Roles name, the apiserver refuses the agent: say which value.
    const forbidden = error instanceof KubeError && error.status === 403;
    meshFailed(ctx, mem, forbidden ? new CertificateError(`${error.message} (the agent may keep cacerts only in the namespaces of the chart value certificates.namespaces: add "${mem.directive.secretNamespace}")`, { cause: error }) : error);
  }
}

/**
 * Records that a mesh's certificate or restart step failed: a `failed` result with the error, the
 * error counter, one log line (the message only — never key material or Secret data) and a retry
 * after a jittered backoff. Shared by the restart stage.
 */
export function meshFailed(ctx: CycleContext, mem: MeshMemory, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  mem.failures++;
  mem.retryAt = ctx.now.getTime() + backoffMs(mem.failures, RETRY);
  mem.result = { mesh: mem.directive.mesh, state: "failed", error: message.slice(0, 4000) };
  ctx.deps.metrics.certificateError(mem.directive.mesh);
  ctx.deps.log.error("certificate step failed; will retry", { mesh: mem.directive.mesh, failures: mem.failures, detail: message });
}

async function ensureCacerts(ctx: CycleContext, d: CertificateDirective): Promise<{ result: CertificateResult; marks: CacertsMarks }> {
  const { kube, scope, log } = ctx.deps;
  const secret = await kube.read<SecretObject>(cacertsRef(d));
  if (secret && !ownedBy(secret.metadata.labels, scope) && !ctx.deps.certificates.adoptExistingCacerts) {
    throw new CertificateError(
      `Secret ${d.secretNamespace}/${d.secretName} exists and was not written by meshplane (it lacks meshplane's owner labels), so the agent leaves it untouched; to let meshplane replace it with an intermediate from VirtualMesh ${d.virtualMesh}, set the agent's chart value certificates.adoptExistingCacerts=true`,
    );
  }
  const held = materialOf(secret);
  const reason = renewalReason(held, d, ctx.now);
  if (held !== undefined && reason === undefined) return { result: issuedResult(d.mesh, held), marks: marksOf(secret) };
  log.info("requesting a new intermediate CA", { mesh: d.mesh, namespace: d.secretNamespace, reason });
  const material = await issueIntermediate({ client: ctx.deps.client, crypto: ctx.deps.crypto ?? globalThis.crypto, now: ctx.now }, d);
  const marks = marksOf(secret);
  // istiod loads another root bundle only when it restarts; the restart stage acts on this mark.
  if (!heldRootsEqual(held, d.trustBundle)) marks.rootsChangedAt = ctx.now.toISOString();
  await kube.apply(cacertsSecret(d, scope, material, marks) as never);
  ctx.deps.metrics.certificatesIssued++;
  const result = issuedResult(d.mesh, material);
  log.info("cacerts written", { mesh: d.mesh, namespace: d.secretNamespace, issuer: result.issuer, trustBundle: result.trustBundle, notAfter: result.notAfter, rootsChanged: marks.rootsChangedAt === ctx.now.toISOString() });
  return { result, marks };
}

function heldRootsEqual(held: ReturnType<typeof materialOf>, bundle: readonly string[]): boolean {
  if (held === undefined) return false;
  try {
    return sameList(rootFingerprints(held.rootCert), bundle);
  } catch {
    return false;
  }
}
