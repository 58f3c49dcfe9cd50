import type { CertificateDirective, CertificateResult } from "@meshplane/core";
import { backoffMs } from "../backoff";
import type { Logger } from "../observability/log";
import type { Metrics } from "../observability/metrics";
import type { CacertsMarks } from "./cacerts";

/** What the certificate and restart stages keep of one mesh from one cycle to the next. */
export interface MeshMemory {
  directive: CertificateDirective;
  /** What the next status report says of the mesh. */
  result: CertificateResult;
  /** The restart progress recorded on the mesh's cacerts, as last read or written; undefined before. */
  marks?: CacertsMarks;
  failures: number;
  /** A failed mesh is not retried before this time (ms since the epoch). */
  retryAt: number;
}

// A refused CSR or a missing permission needs someone to act; retrying every poll would only add load.
const RETRY = { baseMs: 10_000, capMs: 10 * 60_000 };

/**
 * A mesh's memory after its certificate or restart step failed at `now`: a `failed` result with the
 * error, one more failure and a retry after a jittered backoff. Counts the error and writes one log
 * line (the message only — never key material or Secret data).
 */
export function meshFailed(env: { metrics: Metrics; log: Logger }, mem: MeshMemory, error: unknown, now: Date): MeshMemory {
  const message = error instanceof Error ? error.message : String(error);
  const failures = mem.failures + 1;
  const failed: MeshMemory = {
    ...mem,
    failures,
    retryAt: now.getTime() + backoffMs(failures, RETRY),
    result: { mesh: mem.directive.mesh, state: "failed", error: message.slice(0, 4000) },
  };
  env.metrics.certificateError(mem.directive.mesh);
  env.log.error("certificate step failed; will retry", { mesh: mem.directive.mesh, failures, detail: message });
  return failed;
}

/** One result per directive (then one per directive the agent could not read), in mesh order: what a status report says of certificates. */
export function certificateResults(
  directives: readonly CertificateDirective[],
  meshes: ReadonlyMap<string, MeshMemory>,
  refused: readonly CertificateResult[],
): CertificateResult[] {
  const kept = directives.flatMap((d) => {
    const mem = meshes.get(d.mesh);
    return mem ? [mem.result] : [];
  });
  return [...kept, ...refused];
}
