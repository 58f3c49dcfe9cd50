/**
 * Tenants, the operator's (docs/api.md#endpoints): made with a first admin token, deleted with all
 * their tokens, clusters and resources. Each is logged; what the operator does is an audit record.
 */
import type { Logger } from "../shared/logger";
import type { Store, Tenant } from "../store/index";

export interface TenantDeps {
  store: Store;
  now: () => Date;
  log: Logger;
}

/** Creates the tenant `name` (ConflictError when it exists); logged. Answers it and its first admin token, shown only this once. */
export async function createTenant(deps: TenantDeps, name: string): Promise<{ tenant: Tenant; adminToken: string }> {
  const { tenant, adminToken } = await deps.store.tenants.create(name, deps.now().toISOString());
  deps.log.info("tenant created", { tenantId: tenant.id });
  return { tenant, adminToken };
}

/** Deletes the tenant with all its tokens, clusters and resources (NotFoundError without it); the operator `operatorTokenId` did it, an audit record says. */
export async function deleteTenant(deps: TenantDeps, tenantId: string, operatorTokenId: string): Promise<void> {
  const removed = await deps.store.tenants.delete(tenantId);
  // An audit record: who removed which tenant, and what went with it (counts, never a secret or hash).
  deps.log.info("audit: operator deleted a tenant", { audit: true, tenantId, operatorTokenId, ...removed });
}
