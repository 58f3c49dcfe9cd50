import type { CertificateDirective, CertificateResult, KubeObject, ObjectResult, StatusReport, WebCrypto } from "@meshplane/core";
import type { JWK } from "jose";
import type { ApplyOutcome, Scope } from "../stages/apply";
import type { CacertsMarks } from "../certificates/cacerts";
import type { AgentClient } from "../control-plane/client";
import type { KubeClient } from "../kube/kube";
import type { Logger } from "../observability/log";
import type { Metrics } from "../observability/metrics";
import type { CertificateOptions } from "../options";
import type { AgentState, StateStore } from "./state";

/** A Deployment, StatefulSet or DaemonSet of a mesh, and when it was last restarted (ISO), if known. */
export interface WorkloadRef {
  kind: "Deployment" | "StatefulSet" | "DaemonSet";
  namespace: string;
  name: string;
  restartedAt?: string;
}

/** Everything the stages use; wired once in agent.ts (STYLE.md 10). */
export interface SyncDeps {
  client: AgentClient;
  kube: KubeClient;
  stateStore: Pick<StateStore, "save">;
  state: AgentState;
  scope: Scope;
  trustedKeys: JWK[];
  metrics: Metrics;
  log: Logger;
  pollIntervalMs: number;
  pollJitter: number;
  resyncIntervalMs: number;
  isLeader: () => boolean;
  certificates: CertificateOptions;
  /** A mesh's workloads as discovery sees them; undefined until discovery has listed the whole cluster. */
  meshWorkloads: (mesh: string) => WorkloadRef[] | undefined;
  /** WebCrypto for the intermediate's key; globalThis.crypto unless a test passes another. */
  crypto?: WebCrypto;
  now?: () => Date;
}

/** What the certificate and restart stages remember of one mesh between cycles. */
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

/** What the loop keeps from one cycle to the next (only in memory: the cluster holds the rest). */
export interface LoopMemory {
  desired?: KubeObject[];
  directives: CertificateDirective[];
  /** Results for directives of the snapshot that the agent could not read (a control-plane bug). */
  refusedDirectives: CertificateResult[];
  /** resourceVersion of every applied object, for drift detection. */
  versions: Map<string, string>;
  /** Canonical JSON of each object as last applied, so a new snapshot re-applies only what changed. */
  appliedJson: Map<string, string>;
  lastApplyAt: number;
  /** The per-object results last reported; a report about certificates alone repeats them. */
  results: ObjectResult[];
  meshes: Map<string, MeshMemory>;
  /** Canonical JSON of the certificate results last reported. */
  reportedCertificates: string;
}

/**
 * One cycle over one desired set (STYLE.md 9). Each stage reads what the stages before it left here
 * and adds its own part; none returns anything, so every stage has the same signature and can be run
 * (and tested) alone on a context built with newCycle.
 */
export interface CycleContext {
  deps: SyncDeps;
  memory: LoopMemory;
  now: Date;
  /** The snapshot the poll brought, still to verify; undefined when it was unchanged. */
  jws?: string;
  /** Set by verify when the snapshot is newer than the one applied. */
  snapshot?: { generation: number; hash: string };
  /** What apply and prune do: nothing, the objects changed since last applied, or everything (resync). */
  applyMode: "none" | "changed" | "all";
  applied?: ApplyOutcome;
  pruned: ObjectResult[];
  /** Time spent in apply and prune, for the log. */
  applyMs: number;
  /** Sends (or queues, when the control plane is unreachable) a status report. */
  send: (report: StatusReport) => Promise<void>;
}

export type Stage = (ctx: CycleContext) => Promise<void>;

/** An empty memory: what a freshly started agent knows. */
export function newMemory(): LoopMemory {
  return { directives: [], refusedDirectives: [], versions: new Map(), appliedJson: new Map(), lastApplyAt: 0, results: [], meshes: new Map(), reportedCertificates: "[]" };
}

/**
 * A context for one cycle. `jws` is the snapshot the poll brought (undefined: unchanged); `resync`
 * asks apply and prune to redo everything although the snapshot did not change.
 */
export function newCycle(options: { deps: SyncDeps; memory: LoopMemory; jws?: string; resync?: boolean; send: CycleContext["send"] }): CycleContext {
  const { deps, memory, jws, resync, send } = options;
  return {
    deps,
    memory,
    now: deps.now?.() ?? new Date(),
    ...(jws === undefined ? {} : { jws }),
    applyMode: resync ? "all" : "none",
    pruned: [],
    applyMs: 0,
    send,
  };
}
