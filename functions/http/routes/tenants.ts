import type { Tenant } from "../../store/index";
import { type TenantDeps, createTenant, deleteTenant } from "../../tenancy/tenants";
import { mintTenantToken } from "../../tenancy/tokens";
import { withLog } from "../context";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { createTenantBody, createTokenBody, idParams, listOf, listQuery, tenantView, tokenInfo } from "../schemas";

const view = (t: Tenant) => ({ id: t.id, revision: t.revision, translatedRevision: t.translatedRevision, createdAt: t.createdAt });

/** Operator endpoints: tenants and their first admin token, over functions/tenancy. */
export function tenantRoutes(deps: Omit<TenantDeps, "log">) {
  const { store } = deps;
  return [
    route({
      method: "post",
      path: "/v1/tenants",
      tag: "tenants",
      access: "operator",
      summary: "Create a tenant; returns its first admin token, shown only this once",
      body: createTenantBody,
      responses: { 201: { description: "created", schema: tenantView.extend({ adminToken: tenantView.shape.id }) } },
      handler: async (c, { body }) => {
        const { tenant, adminToken } = await createTenant(withLog(c, deps), body.name);
        return c.json({ ...view(tenant), adminToken }, 201);
      },
    }),
    route({
      method: "get",
      path: "/v1/tenants",
      tag: "tenants",
      access: "operator",
      summary: "List tenants, a page at a time",
      query: listQuery,
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
      method: "get",
      path: "/v1/tenants/{id}",
      tag: "tenants",
      access: "operator",
      summary: "Get a tenant",
      params: idParams,
      responses: { 200: { description: "the tenant", schema: tenantView } },
      handler: async (c, { params }) => c.json(view(await store.tenants.get(params.id))),
    }),
    route({
      method: "post",
      path: "/v1/tenants/{id}/tokens",
      tag: "tenants",
      access: "operator",
      summary: "Mint a token for a tenant (recovery when its admins are locked out); the secret is shown only this once",
      params: idParams,
      body: createTokenBody,
      responses: { 201: { description: "created", schema: tokenInfo.extend({ token: tokenInfo.shape.id }) }, 404: { description: "no such tenant" } },
      handler: async (c, { body, params }) => {
        const { token, info } = await mintTenantToken(withLog(c, deps), params.id, body);
        return c.json({ ...info, token }, 201);
      },
    }),
    route({
      method: "delete",
      path: "/v1/tenants/{id}",
      tag: "tenants",
      access: "operator",
      summary: "Delete a tenant with all its tokens, clusters and resources",
      params: idParams,
      responses: { 204: { description: "deleted" } },
      handler: async (c, { params }) => {
        await deleteTenant(withLog(c, deps), params.id, c.get("principal").tokenId);
        return c.body(null, 204);
      },
    }),
  ];
}
