import { gunzipSync } from "node:zlib";
import { discoveryReport, registerRequest, registerResponse, statusReport } from "@meshplane/core/base";
import { z } from "zod";
import { type AgentDeps, agentSnapshot, recordDiscovery, recordStatus, registerAgent } from "../../clusters/agent-protocol";
import { withLog } from "../context";
import { type Route, route } from "../route";

/**
 * Discovery of a large cluster, and the per-object results of one with tens of thousands of generated
 * objects, are bigger than a policy; API Gateway allows 10 MB, Lambda 6 MB.
 */
export const MAX_AGENT_BODY_BYTES = 5 * 1024 * 1024;

/** The agent protocol (docs/pipeline.md#the-agent-protocol): register, pull the snapshot, report discovery and status (functions/clusters/agent-protocol.ts). */
export function agentRoutes(deps: Omit<AgentDeps, "log">): Route[] {
  return [
    route({
      method: "post",
      path: "/v1/agent/register",
      tag: "agent",
      access: "public",
      summary:
        "Exchange a one-time bootstrap token for the binding of the agent's public key to its cluster; answers the cluster's incarnation, which every snapshot's audience names",
      body: registerRequest,
      responses: { 200: { description: "registered", schema: registerResponse }, 401: { description: "the bootstrap token is unknown, used or expired" } },
      handler: async (c, { body }) => {
        const { tenantId, cluster, incarnation } = await registerAgent(withLog(c, deps), body);
        return c.json({ tenant: tenantId, cluster, ...(incarnation ? { incarnation } : {}) });
      },
    }),
    route({
      method: "get",
      path: "/v1/agent/snapshot",
      tag: "agent",
      access: "agent",
      summary: "The cluster's signed snapshot (application/jose); If-None-Match → 304 from one read",
      headers: { "If-None-Match": "the ETag of the snapshot the agent holds" },
      responses: { 200: { description: "compact JWS" }, 304: { description: "unchanged" }, 404: { description: "no snapshot yet" } },
      handler: async (c) => {
        const { tenantId, cluster, head } = c.get("agent");
        const snapshot = await agentSnapshot(deps, tenantId, cluster, head);
        if (!snapshot)
          return c.json({ type: "about:blank", title: "Not Found", status: 404, detail: "no snapshot yet" }, 404, {
            "content-type": "application/problem+json",
          });
        const { etag } = snapshot;
        if (c.req.header("if-none-match") === etag) return c.body(null, 304, { etag });
        const gz = await snapshot.body();
        const gzipOk = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
        return c.body(gzipOk ? new Uint8Array(gz) : new Uint8Array(gunzipSync(gz)), 200, {
          "content-type": "application/jose",
          etag,
          ...(gzipOk ? { "content-encoding": "gzip" } : {}),
        });
      },
    }),
    route({
      method: "post",
      path: "/v1/agent/discovery",
      tag: "agent",
      access: "agent",
      maxBodyBytes: MAX_AGENT_BODY_BYTES,
      summary: "Report what the agent discovered; stored and translated only when it changed",
      body: discoveryReport,
      responses: { 202: { description: "accepted", schema: z.object({ changed: z.boolean() }) } },
      handler: async (c, { body }) => {
        const { tenantId, cluster, head } = c.get("agent");
        return c.json({ changed: await recordDiscovery(withLog(c, deps), tenantId, cluster, head, body) }, 202);
      },
    }),
    route({
      method: "post",
      path: "/v1/agent/status",
      tag: "agent",
      access: "agent",
      maxBodyBytes: MAX_AGENT_BODY_BYTES,
      summary: "Report the applied generation and per-object results",
      body: statusReport,
      responses: { 202: { description: "accepted", schema: z.object({ changed: z.boolean() }) } },
      handler: async (c, { body }) => {
        const { tenantId, cluster, head } = c.get("agent");
        return c.json({ changed: await recordStatus(withLog(c, deps), tenantId, cluster, head, body) }, 202);
      },
    }),
  ];
}
