/**
 * Tenant API tokens (docs/api.md#endpoints): made by a tenant's admin, or by the operator inside a
 * tenant (recovery), each secret shown once and stored only as a hash; revoked at once.
 */
import { ValidationError } from "@meshplane/core/base";
import type { Logger } from "../shared/logger";
import type { Role, Store, TokenInfo } from "../store/index";
import type { TokenCreator } from "../store/tokens";

export interface TokenDeps {
  store: Store;
  now: () => Date;
  log: Logger;
}

/** A token asked for: its name and role, and when it expires as `ttlDays` from now or `expiresAt` (neither = never). */
export interface TokenRequest {
  name: string;
  role: Role;
  expiresAt?: string;
  ttlDays?: number;
}

/** The longest a token may live, as `ttlDays` or as `expiresAt`. */
export const MAX_TOKEN_DAYS = 3650;

/**
 * When a token asked for as `body` expires: `ttlDays` from now, or `expiresAt` (normalised to UTC),
 * which must be in the future and at most MAX_TOKEN_DAYS ahead; undefined for a token that never
 * expires.
 */
export function tokenExpiry(body: Pick<TokenRequest, "expiresAt" | "ttlDays">, now: Date): string | undefined {
  if (body.ttlDays) return new Date(now.getTime() + body.ttlDays * 86_400_000).toISOString();
  if (!body.expiresAt) return undefined;
  const at = Date.parse(body.expiresAt);
  if (at <= now.getTime()) throw new ValidationError("invalid request body", [{ path: "expiresAt", message: "must be in the future" }]);
  if (at > now.getTime() + MAX_TOKEN_DAYS * 86_400_000) {
    throw new ValidationError("invalid request body", [{ path: "expiresAt", message: `must be at most ${MAX_TOKEN_DAYS} days ahead` }]);
  }
  return new Date(at).toISOString();
}

async function issue(deps: TokenDeps, tenantId: string, request: TokenRequest, createdBy: TokenCreator): Promise<{ token: string; info: TokenInfo }> {
  const now = deps.now();
  const expiresAt = tokenExpiry(request, now);
  return deps.store.tokens.create(tenantId, { name: request.name, role: request.role, createdBy, ...(expiresAt ? { expiresAt } : {}) }, now.toISOString());
}

/** A tenant's admin (its token `creatorTokenId`) makes a token; logged. Answers the secret, returned only this once, and what is stored of it. */
export async function createToken(
  deps: TokenDeps,
  tenantId: string,
  creatorTokenId: string,
  request: TokenRequest,
): Promise<{ token: string; info: TokenInfo }> {
  const createdBy = { kind: "tenant" as const, tokenId: creatorTokenId };
  const made = await issue(deps, tenantId, request, createdBy);
  deps.log.info("token created", { tokenId: made.info.id, role: made.info.role, createdBy: createdBy.tokenId });
  return made;
}

/**
 * The operator mints a token inside the tenant (recovery when its admins are locked out): an audit
 * record is logged. NotFoundError (404) without the tenant. Answers as createToken.
 */
export async function mintTenantToken(deps: TokenDeps, tenantId: string, request: TokenRequest): Promise<{ token: string; info: TokenInfo }> {
  const { token, info } = await issue(deps, tenantId, request, { kind: "operator" });
  // An audit record: the operator acted inside a tenant.
  deps.log.info("audit: operator minted a tenant token", { audit: true, tenantId, tokenId: info.id, role: info.role, name: info.name });
  return { token, info };
}

/** Revokes the token `tokenId` at once; logged. NotFoundError (404) without it, ConflictError (409) for the tenant's last valid admin token. */
export async function revokeToken(deps: TokenDeps, tenantId: string, tokenId: string): Promise<void> {
  await deps.store.tokens.revoke(tenantId, tokenId, deps.now());
  deps.log.info("token revoked", { tokenId });
}
