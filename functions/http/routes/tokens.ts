import { type TokenDeps, createToken, revokeToken } from "../../tenancy/tokens";
import { withLog } from "../context";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { createTokenBody, idParams, listOf, listQuery, tokenInfo } from "../schemas";

/** Tenant API tokens (admin role), over functions/tenancy/tokens.ts. */
export function tokenRoutes(deps: Omit<TokenDeps, "log">) {
  return [
    route({
      method: "post",
      path: "/v1/tokens",
      tag: "tokens",
      access: "admin",
      summary: "Create a token; the secret is returned only this once and stored only as a hash",
      body: createTokenBody,
      responses: { 201: { description: "created", schema: tokenInfo.extend({ token: tokenInfo.shape.id }) } },
      handler: async (c, { body }) => {
        const { token, info } = await createToken(withLog(c, deps), c.get("tenantId"), c.get("principal").tokenId, body);
        return c.json({ ...info, token }, 201);
      },
    }),
    route({
      method: "get",
      path: "/v1/tokens",
      tag: "tokens",
      access: "admin",
      summary: "List tokens (never their secrets), a page at a time",
      query: listQuery,
      responses: { 200: { description: "one page of the tokens, oldest first", schema: listOf(tokenInfo) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        return c.json(await listPage(query, ["tokens", tenantId], namePosition, (request) => deps.store.tokens.page(tenantId, request)));
      },
    }),
    route({
      method: "delete",
      path: "/v1/tokens/{id}",
      tag: "tokens",
      access: "admin",
      summary: "Revoke a token at once",
      params: idParams,
      responses: { 204: { description: "revoked" }, 404: { description: "no such token" }, 409: { description: "the tenant's last valid admin token" } },
      handler: async (c, { params: { id } }) => {
        await revokeToken(withLog(c, deps), c.get("tenantId"), id);
        return c.body(null, 204);
      },
    }),
  ];
}
