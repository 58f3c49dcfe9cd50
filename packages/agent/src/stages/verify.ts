import { type CertificateDirective, type CertificateResult, type KubeObject, snapshotAudience, verifySnapshot } from "@meshplane/core";
import { parseDirectives } from "../certificates/directive";
import type { StageEnv } from "./env";

export interface VerifyInput {
  /** The snapshot the poll brought. */
  jws: string;
  /** From the state Secret: the incarnation registered with, and the generation and hash last applied. */
  state: { incarnation?: string; appliedGeneration: number; appliedHash?: string };
  /** Whether the loop holds a desired set: a restarted agent holds none, so it applies even the snapshot it applied last. */
  holdsDesired: boolean;
  now: Date;
}

export interface VerifyOutput {
  /** The snapshot's desired set. */
  objects: KubeObject[];
  /** Its certificate directives, sorted by mesh, and a failed result for each one the agent could not read. */
  directives: CertificateDirective[];
  refusedDirectives: CertificateResult[];
  /** The snapshot's generation and hash, unless it is the one applied and held: then apply and prune have nothing new to do. */
  newer?: { generation: number; hash: string };
}

/**
 * The verify stage: the snapshot must verify (signature by a pinned key; audience: this tenant,
 * cluster and the incarnation the agent registered with; no rollback, not expired, hash) or it throws
 * SnapshotRejectedError and the cycle applies nothing (fail static). A verified snapshot gives the
 * desired set and the certificate directives.
 */
export async function verifyStage(env: Pick<StageEnv, "trustedKeys" | "scope">, input: VerifyInput): Promise<VerifyOutput> {
  const { state } = input;
  const payload = await verifySnapshot(input.jws, {
    trustedKeys: env.trustedKeys,
    audience: snapshotAudience(env.scope.tenant, env.scope.cluster, state.incarnation),
    lastGeneration: state.appliedGeneration,
    now: input.now,
  });
  const same = payload.generation === state.appliedGeneration && payload.hash === state.appliedHash && input.holdsDesired;
  const { directives, refused } = parseDirectives(payload.certificates);
  return {
    objects: payload.objects as KubeObject[],
    directives,
    refusedDirectives: refused,
    ...(same ? {} : { newer: { generation: payload.generation, hash: payload.hash } }),
  };
}
