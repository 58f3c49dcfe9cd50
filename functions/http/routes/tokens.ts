import type { Store } from "../../store/index";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { createTokenBody, idParams, listOf, listQuery, tokenInfo } from "../schemas";
import { ValidationError } from "@meshplane/core/base";
import type { z } from "zod";

/** The longest a token may live, as `ttlDays` or as `expiresAt`. */
export const MAX_TOKEN_DAYS = 3650;

/**
 * When a token asked for as `body` expires: `ttlDays` from now, or `expiresAt` (normalised to UTC),
 * which must be in the future and at most MAX_TOKEN_DAYS ahead; undefined for a token that never
 * expires.
 */
export function tokenExpiry(body: z.infer<typeof createTokenBody>, now: Date): string | undefined {
  if (body.ttlDays) return new Date(now.getTime() + body.ttlDays * 86_400_000).toISOString();
  if (!body.expiresAt) return undefined;
  const at = Date.parse(body.expiresAt);
  if (at <= now.getTime()) throw new ValidationError("invalid request body", [{ path: "expiresAt", message: "must be in the future" }]);
  if (at > now.getTime() + MAX_TOKEN_DAYS * 86_400_000) {
    throw new ValidationError("invalid request body", [{ path: "expiresAt", message: `must be at most ${MAX_TOKEN_DAYS} days ahead` }]);
  }
  return new Date(at).toISOString();
}

/** Tenant API tokens (admin role). */
export function tokenRoutes(deps: { store: Store; now: () => Date }) {
  const { store } = deps;
  return [
    route({
      method: "post", path: "/v1/tokens", tag: "tokens", access: "admin",
      summary: "Create a token; the secret is returned only this once and stored only as a hash",
      body: createTokenBody,
      responses: { 201: { description: "created", schema: tokenInfo.extend({ token: tokenInfo.shape.id }) } },
      handler: async (c, { body }) => {
        const now = deps.now();
        const expiresAt = tokenExpiry(body, now);
        const createdBy = { kind: "tenant" as const, tokenId: c.get("principal").tokenId };
        const { token, info } = await store.tokens.create(c.get("tenantId"), { name: body.name, role: body.role, createdBy, ...(expiresAt ? { expiresAt } : {}) }, now.toISOString());
        c.get("log").info("token created", { tokenId: info.id, role: info.role, createdBy: createdBy.tokenId });
        return c.json({ ...info, token }, 201);
      },
    }),
    route({
      method: "get", path: "/v1/tokens", tag: "tokens", access: "admin", summary: "List tokens (never their secrets), a page at a time", query: listQuery,
      responses: { 200: { description: "one page of the tokens, oldest first", schema: listOf(tokenInfo) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        return c.json(await listPage(query, ["tokens", tenantId], namePosition, (request) => store.tokens.page(tenantId, request)));
      },
    }),
    route({
      method: "delete", path: "/v1/tokens/{id}", tag: "tokens", access: "admin", summary: "Revoke a token at once",
      params: idParams,
      responses: { 204: { description: "revoked" }, 404: { description: "no such token" }, 409: { description: "the tenant's last valid admin token" } },
      handler: async (c, { params: { id } }) => {
        await store.tokens.revoke(c.get("tenantId"), id, deps.now());
        c.get("log").info("token revoked", { tokenId: id });
        return c.body(null, 204);
      },
    }),
  ];
}
