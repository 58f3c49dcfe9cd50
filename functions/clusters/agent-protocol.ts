/**
 * The agent protocol's use cases (docs/pipeline.md#the-agent-protocol): an agent registers its key
 * with a bootstrap token, pulls its cluster's snapshot, and reports what it discovered and what it
 * applied. Reports are stored only when they changed, and each change is translated (a job enqueued).
 */
import { createPublicKey } from "node:crypto";
import {
  type DiscoveryReport,
  type PublicEcJwk,
  type RegisterRequest,
  type StatusReport,
  ValidationError,
  assignDiscoveredNames,
  canonicalJson,
  sha256,
  snapshotEtag,
} from "@meshplane/core/base";
import { type JWK, calculateJwkThumbprint } from "jose";
import { enqueueTranslate } from "../queue/enqueue";
import type { TranslateQueue } from "../queue/translate-queue";
import { type Logger, describeError } from "../shared/logger";
import type { ClusterHead, Store } from "../store/index";

export interface AgentDeps {
  store: Store;
  queue: TranslateQueue;
  now: () => Date;
  log: Logger;
}

/**
 * The schema checks a key's shape; this checks that it is a point on P-256 at all, before the
 * bootstrap token is spent on a key no signature could ever verify against.
 */
function checkPoint(key: PublicEcJwk): void {
  try {
    createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y }, format: "jwk" });
  } catch {
    throw new ValidationError("invalid request body", [{ path: "publicKey", message: "is not a point on the P-256 curve" }]);
  }
}

/**
 * Spends the one-time bootstrap token on binding the agent's public key (kid = its JWK thumbprint) to
 * its cluster, and logs it. ValidationError for a key off the curve (the token unspent); the store's
 * error (401) for a token unknown, used or expired. Answers the cluster and its incarnation, which
 * every snapshot's audience names (absent for a cluster registered before incarnations).
 */
export async function registerAgent(deps: AgentDeps, request: RegisterRequest): Promise<{ tenantId: string; cluster: string; incarnation?: string }> {
  checkPoint(request.publicKey);
  const kid = await calculateJwkThumbprint(request.publicKey as JWK);
  const jwk = { kty: request.publicKey.kty, crv: request.publicKey.crv, x: request.publicKey.x, y: request.publicKey.y };
  const registered = await deps.store.agents.register(request.bootstrapToken, jwk, kid, deps.now());
  deps.log.info("agent registered", {
    tenant: registered.tenantId,
    cluster: registered.cluster,
    incarnation: registered.incarnation,
    agentVersion: request.agentVersion,
    kid,
  });
  return registered;
}

/**
 * The snapshot the agent of `cluster` pulls, with `head` as its verified token read it: notes the
 * agent as seen, and answers the snapshot's entity tag and a reader of its body (the gzipped compact
 * JWS), read only when called; undefined when nothing is published for the cluster yet.
 */
export async function agentSnapshot(
  deps: Pick<AgentDeps, "store" | "now">,
  tenantId: string,
  cluster: string,
  head: ClusterHead,
): Promise<{ etag: string; body: () => Promise<Buffer> } | undefined> {
  await deps.store.agents.seen(tenantId, cluster, head, deps.now());
  const snapshot = head.snapshot;
  if (!snapshot) return undefined;
  return { etag: snapshotEtag(snapshot.generation, snapshot.hash), body: () => deps.store.snapshots.body(tenantId, cluster, snapshot) };
}

/**
 * Stores what the agent of `cluster` discovered, every object named by the control plane, never by
 * the agent (docs/api.md, "Discovered names"); the report's own hash is advisory. Answers whether it
 * changed (then its translation is enqueued).
 */
export async function recordDiscovery(deps: AgentDeps, tenantId: string, cluster: string, head: ClusterHead, report: DiscoveryReport): Promise<boolean> {
  const { hash: _advisory, ...reported } = report;
  const result = assignDiscoveredNames(reported, cluster);
  const revision = await deps.store.agents.recordDiscovery(tenantId, cluster, result, sha256(canonicalJson(result)), head);
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  return revision !== undefined;
}

/**
 * Stores the status the agent of `cluster` reports: the generation it applied and per-object results.
 * ValidationError, nothing stored, for a generation later than the latest published (an agent can only
 * have applied one it fetched, and only published ones are served). Answers whether what statuses
 * are made of changed (then its translation is enqueued).
 */
export async function recordStatus(deps: AgentDeps, tenantId: string, cluster: string, head: ClusterHead, report: StatusReport): Promise<boolean> {
  const latest = head.snapshot?.generation ?? 0;
  if (report.generation > latest) {
    throw new ValidationError("status report names an unpublished generation; nothing was stored", [
      { path: "generation", message: `must be at most ${latest}, the latest generation published for cluster ${cluster}` },
    ]);
  }
  const hash = sha256(
    canonicalJson({
      generation: report.generation,
      error: report.error ?? null,
      failed: report.results.filter((r) => r.state === "failed"),
      certificates: report.certificates ?? [],
    }),
  );
  const revision = await deps.store.agents.recordReport(tenantId, cluster, report, hash, deps.now());
  if (report.generation > (head.appliedGeneration ?? 0)) await recordAppliedChanges(deps, tenantId, cluster, report.generation);
  await enqueueTranslate(deps.queue, deps.log, tenantId, revision);
  return revision !== undefined;
}

/**
 * Records which policy versions a newly applied generation brought to the cluster, the change
 * markers (docs/observability.md#change-impact); best effort: a failure is logged, the report stands.
 */
async function recordAppliedChanges(deps: AgentDeps, tenantId: string, cluster: string, generation: number): Promise<void> {
  try {
    const kinds = ["VirtualMesh", "TrafficPolicy", "AccessPolicy"] as const;
    const resources = (await Promise.all(kinds.map((kind) => deps.store.resources.list(tenantId, kind)))).flat();
    await deps.store.appliedChanges.record(tenantId, cluster, generation, resources, deps.now());
  } catch (error) {
    deps.log.error("recording applied changes failed", { tenant: tenantId, cluster, generation, ...describeError(error) });
  }
}
