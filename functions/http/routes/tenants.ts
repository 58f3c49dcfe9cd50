import type { Store } from "../../store/index";
import type { Tenant } from "../../store/index";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { createTenantBody, createTokenBody, idParams, listOf, listQuery, tenantView, tokenInfo } from "../schemas";
import { tokenExpiry } from "./tokens";

const view = (t: Tenant) => ({ id: t.id, revision: t.revision, translatedRevision: t.translatedRevision, createdAt: t.createdAt });

/** Operator endpoints: tenants and their first admin token. */
export function tenantRoutes(deps: { store: Store; now: () => Date }) {
  const { store } = deps;
  return [
    route({
      method: "post", path: "/v1/tenants", tag: "tenants", access: "operator",
      summary: "Create a tenant; returns its first admin token, shown only this once",
      body: createTenantBody,
      responses: { 201: { description: "created", schema: tenantView.extend({ adminToken: tenantView.shape.id }) } },
      handler: async (c, { body }) => {
        const { tenant, adminToken } = await store.tenants.create(body.name, deps.now().toISOString());
        c.get("log").info("tenant created", { tenantId: tenant.id });
        return c.json({ ...view(tenant), adminToken }, 201);
      },
    }),
    route({
      method: "get", path: "/v1/tenants", tag: "tenants", access: "operator", summary: "List tenants, a page at a time", query: listQuery,
      responses: { 200: { description: "one page of the tenants, sorted by id", schema: listOf(tenantView) } },
      handler: async (c, { query }) => {
        const page = await listPage(query, ["tenants"], namePosition, async (request) => {
          const tenants = await store.tenants.page(request);
          return { ...tenants, items: tenants.items.map(view) };
        });
        return c.json(page);
      },
    }),
    route({
      method: "get", path: "/v1/tenants/{id}", tag: "tenants", access: "operator", summary: "Get a tenant",
      params: idParams,
      responses: { 200: { description: "the tenant", schema: tenantView } },
      handler: async (c, { params }) => c.json(view(await store.tenants.get(params.id))),
    }),
    route({
      method: "post", path: "/v1/tenants/{id}/tokens", tag: "tenants", access: "operator",
      summary: "Mint a token for a tenant (recovery when its admins are locked out); the secret is shown only this once",
      params: idParams,
      body: createTokenBody,
      responses: { 201: { description: "created", schema: tokenInfo.extend({ token: tokenInfo.shape.id }) }, 404: { description: "no such tenant" } },
      handler: async (c, { body, params }) => {
        const tenantId = params.id;
        const now = deps.now();
        const expiresAt = tokenExpiry(body, now);
        const { token, info } = await store.tokens.create(tenantId, { name: body.name, role: body.role, createdBy: { kind: "operator" }, ...(expiresAt ? { expiresAt } : {}) }, now.toISOString());
        // An audit record: the operator acted inside a tenant.
        c.get("log").info("audit: operator minted a tenant token", { audit: true, tenantId, tokenId: info.id, role: info.role, name: info.name });
        return c.json({ ...info, token }, 201);
      },
    }),
    route({
      method: "delete", path: "/v1/tenants/{id}", tag: "tenants", access: "operator",
      summary: "Delete a tenant with all its tokens, clusters and resources",
      params: idParams,
      responses: { 204: { description: "deleted" } },
      handler: async (c, { params }) => {
        const tenantId = params.id;
        const removed = await store.tenants.delete(tenantId);
        // An audit record: who removed which tenant, and what went with it (counts, never a secret or hash).
        c.get("log").info("audit: operator deleted a tenant", { audit: true, tenantId, operatorTokenId: c.get("principal").tokenId, ...removed });
        return c.body(null, 204);
      },
    }),
  ];
}
