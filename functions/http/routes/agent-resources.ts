import {
  MAX_AUTHORED_BATCH,
  MAX_AUTHORED_PER_CLUSTER,
  authoredList,
  deleteRequest,
  deleteResponse,
  submitRequest,
  submitResponse,
  syncRequest,
  syncResponse,
} from "@meshplane/core/authoring";
import { type AuthoringDeps, authoredPage, deleteResources, submitResources, syncResources } from "../../authoring/index";
import { withLog } from "../context";
import { listPage, namePosition } from "../pagination";
import { type Route, route } from "../route";
import { listQuery } from "../schemas";

/**
 * A submit holds at most MAX_AUTHORED_BATCH documents and is stored in one DynamoDB transaction,
 * which takes 4 MB in all: 3 MiB of documents leave room for their statuses and keys.
 */
export const MAX_SUBMIT_BODY_BYTES = 3 * 1024 * 1024;

/**
 * The authoring part of the agent protocol (docs/gitops.md#the-agent-protocol): the meshplane custom
 * resources an agent watches, submitted, deleted and synced, and their statuses read back. The
 * cluster and tenant are the agent credential's, never the body's. Their budget is `authoring`, apart
 * from the agent's others (docs/api.md#rate-limits).
 */
export function agentResourceRoutes(deps: Omit<AuthoringDeps, "log">): Route[] {
  return [
    route({
      method: "post",
      path: "/v1/agent/resources",
      tag: "agent",
      access: "agent",
      maxBodyBytes: MAX_SUBMIT_BODY_BYTES,
      summary: `Submit custom resources of the agent's cluster (at most ${MAX_AUTHORED_BATCH}): each stored as <name>.<namespace>.<cluster> with metadata.source, or refused with the reason and every field at fault`,
      body: submitRequest,
      responses: {
        200: { description: "a result per item, in order", schema: submitResponse },
        400: { description: "the request is malformed (the field is named); nothing was stored" },
      },
      handler: async (c, { body }) => {
        const { tenantId, cluster } = c.get("agent");
        return c.json({ results: await submitResources(withLog(c, deps), tenantId, cluster, body) });
      },
    }),
    route({
      method: "post",
      path: "/v1/agent/resources/delete",
      tag: "agent",
      access: "agent",
      summary: "Delete custom resources deleted in the agent's cluster, each only at its uid",
      body: deleteRequest,
      responses: { 200: { description: "a result per item, in order: deleted, absent, or kept (a newer uid holds the name)", schema: deleteResponse } },
      handler: async (c, { body }) => {
        const { tenantId, cluster } = c.get("agent");
        return c.json({ results: await deleteResources(withLog(c, deps), tenantId, cluster, body.items) });
      },
    }),
    route({
      method: "post",
      path: "/v1/agent/resources/sync",
      tag: "agent",
      access: "agent",
      summary: `Every custom resource the agent holds (at most ${MAX_AUTHORED_PER_CLUSTER}): deletes the cluster's authored resources that are not among them`,
      body: syncRequest,
      responses: { 200: { description: "how many were deleted", schema: syncResponse } },
      handler: async (c, { body }) => {
        const { tenantId, cluster } = c.get("agent");
        return c.json({ deleted: await syncResources(withLog(c, deps), tenantId, cluster, body.present) });
      },
    }),
    route({
      method: "get",
      path: "/v1/agent/resources",
      tag: "agent",
      access: "agent",
      summary: "The agent's cluster's authored resources with their statuses, a page at a time (continue: the previous page's)",
      query: listQuery,
      responses: { 200: { description: "one page", schema: authoredList } },
      handler: async (c, { query }) => {
        const { tenantId, cluster } = c.get("agent");
        const page = await listPage(query, ["authored", tenantId, cluster], namePosition, (request) => authoredPage(deps, tenantId, cluster, request));
        return c.json({ items: page.items, ...(page.metadata.continue !== undefined ? { continue: page.metadata.continue } : {}) });
      },
    }),
  ];
}
