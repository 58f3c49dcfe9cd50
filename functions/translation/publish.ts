import { gzipSync } from "node:zlib";
import { SNAPSHOT_TYPE, type SnapshotPayload, snapshotAudience } from "@meshplane/core/base";
import { type ClusterOutput, objectCount, objectsJson } from "@meshplane/core/translate";
import type { Signer } from "../signer/signer";
import type { ClusterHead, Store } from "../store/index";

export interface PublishDeps {
  store: Store;
  signer: Signer;
  /** `iss` of every snapshot: the API's base URL. */
  issuer: string;
  /** How long a signature is valid. */
  validitySeconds: number;
  /** A snapshot whose signature expires sooner than this is re-published with a fresh one. */
  refreshBeforeSeconds: number;
}

/**
 * Publishes a cluster's output as the next generation when its content changed, or when its
 * signature is close to expiry (so an agent that starts late can still verify what it fetches).
 * The audience names the cluster's incarnation as `head` has it, and the store refuses the write
 * (ConflictError, so the job is retried on fresh input) if the cluster was re-created meanwhile.
 * Returns the generation the cluster is at afterwards (0 = never published).
 */
export async function publishCluster(
  deps: PublishDeps,
  tenantId: string,
  cluster: string,
  output: ClusterOutput,
  head: ClusterHead | undefined,
  now: Date,
): Promise<number> {
  const current = head?.snapshot;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const fresh = current !== undefined && current.exp - nowSeconds > deps.refreshBeforeSeconds;
  if (current?.hash === output.hash && fresh) return current.generation;
  if (!current && objectCount(output) === 0 && output.certificates.length === 0) return 0;
  const generation = (current?.generation ?? 0) + 1;
  const payload: Omit<SnapshotPayload, "objects"> = {
    iss: deps.issuer,
    aud: snapshotAudience(tenantId, cluster, head?.incarnation),
    tenant: tenantId,
    cluster,
    generation,
    iat: nowSeconds,
    exp: nowSeconds + deps.validitySeconds,
    hash: output.hash,
    certificates: output.certificates as unknown as SnapshotPayload["certificates"],
  };
  // The objects go in as the JSON translation already encoded (and hashed), never built as objects.
  const fields = JSON.stringify(payload);
  const body = Buffer.concat([Buffer.from(`${fields.slice(0, -1)},"objects":`), objectsJson(output), Buffer.from("}")]);
  const jws = await deps.signer.sign(body, SNAPSHOT_TYPE);
  await deps.store.snapshots.write(
    tenantId,
    cluster,
    current,
    { generation, hash: output.hash, signedAt: now.toISOString(), exp: payload.exp, ...(head?.incarnation ? { incarnation: head.incarnation } : {}) },
    gzipSync(jws),
    output.certificates,
  );
  return generation;
}
