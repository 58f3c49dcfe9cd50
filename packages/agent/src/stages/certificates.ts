import { type CertificateDirective, type CertificateResult, canonicalJson } from "@meshplane/core";
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
import { issueIntermediate } from "../certificates/issue";
import { type MeshMemory, meshFailed } from "../certificates/mesh-memory";
import { failedWith } from "../kube/failure";
import { mayOverwrite } from "../ownership";
import type { ApplyMode, StageEnv } from "./env";

type CertificateEnv = Pick<StageEnv, "kube" | "client" | "scope" | "metrics" | "log" | "certificates" | "crypto">;

export interface CertificateInput {
  /** The certificate directives of the snapshot verified last, sorted by mesh. */
  directives: readonly CertificateDirective[];
  /** What the last cycle's certificate and restart stages kept of each mesh. */
  meshes: ReadonlyMap<string, MeshMemory>;
  /** What apply did this cycle: a mesh is looked at again on a new snapshot or a resync. */
  mode: ApplyMode;
  now: Date;
}

export interface CertificateOutput {
  /** One entry per directive; a mesh no directive names any more is forgotten. */
  meshes: Map<string, MeshMemory>;
}

/**
 * The certificate stage (docs/agent.md#stages, item 6). For each directive of the snapshot, keeps
 * the mesh's `cacerts` Secret holding an intermediate issued as the directive says, and asks for a new
 * one (renewalReason) when it does not. A `cacerts` the agent does not own is never touched unless
 * the agent may adopt it (mayOverwrite). Every failure is per mesh — reported, counted, retried after
 * a growing backoff (see `due`) — and never stops the other meshes or the loop.
 */
export async function certificateStage(env: CertificateEnv, input: CertificateInput): Promise<CertificateOutput> {
  const meshes = new Map<string, MeshMemory>();
  for (const d of input.directives) {
    const known = input.meshes.get(d.mesh);
    const mem: MeshMemory = known ? { ...known, directive: d } : { directive: d, result: { mesh: d.mesh, state: "pending" }, failures: 0, retryAt: 0 };
    if (!env.certificates.enabled) {
      meshes.set(d.mesh, {
        ...mem,
        result: {
          mesh: d.mesh,
          state: "failed",
          error: "certificate management is turned off in this agent (chart value certificates.enabled=false): cacerts is left as it is",
        },
      });
    } else {
      meshes.set(d.mesh, due(input, known, d) ? await reconcile(env, mem, input.now) : mem);
    }
  }
  // A mesh that left its VirtualMesh keeps its cacerts: removing it would break the mesh's mTLS.
  return { meshes };
}

/**
 * A mesh is looked at when it is new or its directive changed (the control plane asks for something
 * else: try at once); otherwise not while it backs off after a failure, and then on a new snapshot, a
 * resync, or when its retry is due.
 */
function due(input: CertificateInput, known: MeshMemory | undefined, d: CertificateDirective): boolean {
  if (known === undefined || canonicalJson(known.directive) !== canonicalJson(d)) return true;
  if (input.now.getTime() < known.retryAt) return false;
  return input.mode !== "none" || known.result.state === "failed";
}

async function reconcile(env: CertificateEnv, mem: MeshMemory, now: Date): Promise<MeshMemory> {
  try {
    const { result, marks } = await ensureCacerts(env, mem.directive, now);
    // The failure count is reset by the restart stage, once the mesh's restarts went through too.
    return { ...mem, result, marks };
  } catch (error) {
    // Outside the namespaces the chart's Roles name, the apiserver refuses the agent: say which value.
    const forbidden = failedWith(error, "forbidden");
    return meshFailed(
      env,
      mem,
      forbidden
        ? new CertificateError(
            `${(error as Error).message} (the agent may keep cacerts only in the namespaces of the chart value certificates.namespaces: add "${mem.directive.secretNamespace}")`,
            { cause: error },
          )
        : error,
      now,
    );
  }
}

async function ensureCacerts(env: CertificateEnv, d: CertificateDirective, now: Date): Promise<{ result: CertificateResult; marks: CacertsMarks }> {
  const { kube, scope, log } = env;
  const secret = await kube.read<SecretObject>(cacertsRef(d));
  if (!mayOverwrite(secret, scope, env.certificates.adoptExistingCacerts)) {
    throw new CertificateError(
      `Secret ${d.secretNamespace}/${d.secretName} exists and was not written by meshplane (it lacks meshplane's owner labels), so the agent leaves it untouched; to let meshplane replace it with an intermediate from VirtualMesh ${d.virtualMesh}, set the agent's chart value certificates.adoptExistingCacerts=true`,
    );
  }
  const held = materialOf(secret);
  const reason = renewalReason(held, d, now);
  if (held !== undefined && reason === undefined) return { result: issuedResult(d.mesh, held), marks: marksOf(secret) };
  log.info("requesting a new intermediate CA", { mesh: d.mesh, namespace: d.secretNamespace, reason });
  const material = await issueIntermediate({ client: env.client, crypto: env.crypto ?? globalThis.crypto, now }, d);
  const marks = marksOf(secret);
  // istiod loads another root bundle only when it restarts; the restart stage acts on this mark.
  if (!heldRootsEqual(held, d.trustBundle)) marks.rootsChangedAt = now.toISOString();
  await kube.apply(cacertsSecret(d, scope, material, marks) as never);
  env.metrics.certificatesIssued++;
  const result = issuedResult(d.mesh, material);
  log.info("cacerts written", {
    mesh: d.mesh,
    namespace: d.secretNamespace,
    issuer: result.issuer,
    trustBundle: result.trustBundle,
    notAfter: result.notAfter,
    rootsChanged: marks.rootsChangedAt === now.toISOString(),
  });
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
