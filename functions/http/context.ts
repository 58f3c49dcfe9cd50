import type { Context } from "hono";
import type { Principal } from "../store/index";
import type { AgentIdentity } from "../auth/agent-jwt";
import type { Logger } from "../shared/logger";

/** What middleware puts on the request context; handlers read, never write, these. */
export interface AppVariables {
  requestId: string;
  log: Logger;
  principal: Principal;
  /** Set only from a verified tenant credential (never from a path or body). */
  tenantId: string;
  /** Set only for agent routes, from a verified agent JWT. */
  agent: AgentIdentity;
  /**
   * The turn lane the request waits in, picked from what it was verified as before (refusals.ts),
   * read by the concurrency limit (concurrency.ts); absent, the lane is its credential's.
   */
  turnLane?: string;
}

export type AppEnv = { Variables: AppVariables };

/** A use case's deps for this request: the route's `deps` with the request's logger (its lines carry the request id). */
export function withLog<D extends object>(c: Context<AppEnv>, deps: D): D & { log: Logger } {
  return { ...deps, log: c.get("log") };
}
