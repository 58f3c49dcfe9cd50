import type { CertificateDirective, CertificateResult, KubeObject } from "@meshplane/core";
import type { MeshMemory } from "../certificates/mesh-memory";
import type { AppliedObjects } from "../stages/apply";
import type { Reported } from "../stages/report";

/**
 * What the loop keeps from one cycle to the next (only in memory: the cluster holds the rest). The
 * loop owns it and runCycle alone replaces its fields, each with the output of the stage named.
 */
export interface LoopMemory {
  /** verify: the desired set of the snapshot verified last; undefined until one verified. */
  desired?: KubeObject[];
  /** verify: that snapshot's certificate directives, sorted by mesh. */
  directives: CertificateDirective[];
  /** verify: results for directives of the snapshot that the agent could not read (a control-plane bug). */
  refusedDirectives: CertificateResult[];
  /** apply: versions and content of what was applied, and when. */
  applied: AppliedObjects;
  /** certificates, then restarts: each mesh's certificate result, restart progress and backoff. */
  meshes: ReadonlyMap<string, MeshMemory>;
  /** report: what the control plane was last told. */
  reported: Reported;
}

/** An empty memory: what a freshly started agent knows. */
export function newMemory(): LoopMemory {
  return {
    directives: [],
    refusedDirectives: [],
    applied: { versions: new Map(), json: new Map(), at: 0 },
    meshes: new Map(),
    reported: { results: [], certificates: "[]" },
  };
}
