import type { Principal } from "../store/index";
import type { Logger } from "../shared/logger";

/** What middleware puts on the request context; handlers read, never write, these. */
export interface AppVariables {
  requestId: string;
  log: Logger;
  principal: Principal;
  /** Set only from a verified tenant credential (never from a path or body). */
  tenantId: string;
}

export type AppEnv = { Variables: AppVariables };
