import { ConflictError } from "../shared/errors";
import type { Store } from "../store/index";

export interface FirstStart {
  operatorToken?: string;
  adminToken?: string;
}

/**
 * First start of a local control plane: the operator credential and a `default` tenant with an admin
 * token. Secrets are returned only when they were created now; later starts reuse what is stored.
 */
export async function bootstrapLocal(store: Store, now: Date): Promise<FirstStart> {
  const out: FirstStart = {};
  const operatorToken = await store.tokens.ensureOperator(now.toISOString());
  if (operatorToken) out.operatorToken = operatorToken;
  try {
    out.adminToken = (await store.tenants.create("default", now.toISOString())).adminToken;
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
  }
  return out;
}
