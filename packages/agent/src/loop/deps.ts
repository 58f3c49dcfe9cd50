import type { AgentClient } from "../control-plane/client";
import type { StageEnv } from "../stages/env";
import type { AgentState, StateStore } from "./state";

/** Everything the loop and its stages use; wired once in agent.ts (docs/style.md#10-thin-entry-points-one-composition-root-per-runtime). */
export interface SyncDeps extends StageEnv {
  client: AgentClient;
  stateStore: Pick<StateStore, "save">;
  /** The state Secret's content: the loop records each newly applied snapshot in it (runCycle, recordApplied). */
  state: AgentState;
  pollIntervalMs: number;
  pollJitter: number;
  resyncIntervalMs: number;
  isLeader: () => boolean;
  now?: () => Date;
}
