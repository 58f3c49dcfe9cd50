import type { WebCrypto } from "@meshplane/core";
import type { JWK } from "jose";
import type { AgentClient } from "../control-plane/client";
import type { WorkloadRef } from "../discovery/mesh-workloads";
import type { KubeClient } from "../kube/kube";
import type { Logger } from "../observability/log";
import type { Metrics } from "../observability/metrics";
import type { CertificateOptions } from "../options";
import type { Scope } from "../ownership";

/**
 * The services the stages call, wired once in agent.ts. None of them is data of a cycle: what a
 * stage reads comes in its input and what it produced goes out in its output, and each stage names
 * (with Pick) the services it uses.
 */
export interface StageEnv {
  kube: KubeClient;
  client: Pick<AgentClient, "csr">;
  scope: Scope;
  /** Snapshot signing keys pinned at install. */
  trustedKeys: JWK[];
  metrics: Metrics;
  log: Logger;
  certificates: CertificateOptions;
  /** A mesh's workloads as discovery sees them; undefined until discovery has listed the whole cluster. */
  meshWorkloads: (mesh: string) => WorkloadRef[] | undefined;
  /** WebCrypto for the intermediate's key; globalThis.crypto unless a test passes another. */
  crypto?: WebCrypto;
}

/** What apply and prune do in a cycle: nothing, the objects changed since last applied (a new snapshot), or everything (a resync). */
export type ApplyMode = "none" | "changed" | "all";
