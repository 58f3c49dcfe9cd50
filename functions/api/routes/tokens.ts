import type { Store } from "../../store/index";
import { route } from "../route";
import { createTokenBody, listOf, tokenInfo } from "../schemas";
import { ValidationError } from "@meshplane/core";

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
        const expiresAt = body.ttlDays ? new Date(now.getTime() + body.ttlDays * 86_400_000).toISOString() : body.expiresAt;
        if (expiresAt && Date.parse(expiresAt) <= now.getTime()) {
          throw new ValidationError("invalid request body", [{ path: "expiresAt", message: "must be in the future" }]);
        }
        const { token, info } = await store.tokens.create(c.get("tenantId"), { name: body.name, role: body.role, ...(expiresAt ? { expiresAt: new Date(expiresAt).toISOString() } : {}) }, now.toISOString());
        c.get("log").info("token created", { tokenId: info.id, role: info.role });
        return c.json({ ...info, token }, 201);
      },
    }),
    route({
      method: "get", path: "/v1/tokens", tag: "tokens", access: "admin", summary: "List tokens (never their secrets)",
      responses: { 200: { description: "tokens", schema: listOf(tokenInfo) } },
      handler: async (c) => c.json({ items: await store.tokens.list(c.get("tenantId")) }),
    }),
    route({
      method: "delete", path: "/v1/tokens/{id}", tag: "tokens", access: "admin", summary: "Revoke a token at once",
      responses: { 204: { description: "revoked" } },
      handler: async (c) => {
        await store.tokens.revoke(c.get("tenantId"), c.req.param("id") as string);
        c.get("log").info("token revoked", { tokenId: c.req.param("id") });
        return c.body(null, 204);
      },
    }),
  ];
}
