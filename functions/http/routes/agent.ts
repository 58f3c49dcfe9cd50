import { createPublicKey } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { type PublicEcJwk, ValidationError, assignDiscoveredNames, canonicalJson, discoveryReport, registerRequest, registerResponse, sha256, snapshotEtag, statusReport } from "@meshplane/core/base";
import { type JWK, calculateJwkThumbprint } from "jose";
import { z } from "zod";
import type { TranslateQueue } from "../../queue/translate-queue";
import type { Store } from "../../store/index";
import { enqueueTranslate } from "../enqueue";
import { type Route, route } from "../route";

export interface AgentDeps {
  store: Store;
  queue: TranslateQueue;
  now: () => Date;
}

/**
 * Discovery of a large cluster, and the per-object results of one with tens of thousands of generated
 * objects, are bigger than a policy; API Gateway allows 10 MB, Lambda 6 MB.
 */
export const MAX_AGENT_BODY_BYTES = 5 * 1024 * 1024;

/**
 * The schema checks a key's shape; this checks that it is a point on P-256 at all, before the
 * bootstrap token is spent on a key no signature could ever verify against.
 */
function checkPoint(key: PublicEcJwk): void {
  try {
    createPublicKey({ key: { kty: key.kty, crv: key.crv, x: key.x, y: key.y }, format: "jwk" });
  } catch {
    throw new ValidationError("invalid request body", [{ path: "publicKey", message: "is not a point on the P-256 curve" }]);
  }
}

/** The agent protocol (docs/pipeline.md#the-agent-protocol): register, pull the snapshot, report discovery and status. */
export function agentRoutes(deps: AgentDeps): Route[] {
  const { store } = deps;
  return [
    route({
      method: "post", path: "/v1/agent/register", tag: "agent", access: "public",
      summary: "Exchange a one-time bootstrap token for the binding of the agent's public key to its cluster; answers the cluster's incarnation, which every snapshot's audience names",
      body: registerRequest,
      responses: { 200: { description: "registered", schema: registerResponse }, 401: { description: "the bootstrap token is unknown, used or expired" } },
      handler: async (c, { body }) => {
        checkPoint(body.publicKey);
        const kid = await calculateJwkThumbprint(body.publicKey as JWK);
        const jwk = { kty: body.publicKey.kty, crv: body.publicKey.crv, x: body.publicKey.x, y: body.publicKey.y };
        const { tenantId, cluster, incarnation } = await store.agents.register(body.bootstrapToken, jwk, kid, deps.now());
        c.get("log").info("agent registered", { tenant: tenantId, cluster, incarnation, agentVersion: body.agentVersion, kid });
        return c.json({ tenant: tenantId, cluster, ...(incarnation ? { incarnation } : {}) });
      },
    }),
    route({
      method: "get", path: "/v1/agent/snapshot", tag: "agent", access: "agent",
      summary: "The cluster's signed snapshot (application/jose); If-None-Match → 304 from one read",
      headers: { "If-None-Match": "the ETag of the snapshot the agent holds" },
      responses: { 200: { description: "compact JWS" }, 304: { description: "unchanged" }, 404: { description: "no snapshot yet" } },
      handler: async (c) => {
        const { tenantId, cluster, head } = c.get("agent");
        await store.agents.seen(tenantId, cluster, head, deps.now());
        const snapshot = head.snapshot;
        if (!snapshot) return c.json({ type: "about:blank", title: "Not Found", status: 404, detail: "no snapshot yet" }, 404, { "content-type": "application/problem+json" });
        const etag = snapshotEtag(snapshot.generation, snapshot.hash);
        if (c.req.header("if-none-match") === etag) return c.body(null, 304, { etag });
        const gz = await store.snapshots.body(tenantId, cluster, snapshot);
        const gzipOk = /\bgzip\b/.test(c.req.header("accept-encoding") ?? "");
        return c.body(gzipOk ? new Uint8Array(gz) : new Uint8Array(gunzipSync(gz)), 200, {
          "content-type": "application/jose",
          etag,
          ...(gzipOk ? { "content-encoding": "gzip" } : {}),
        });
      },
    }),
    route({
      method: "post", path: "/v1/agent/discovery", tag: "agent", access: "agent", maxBodyBytes: MAX_AGENT_BODY_BYTES,
      summary: "Report what the agent discovered; stored and translated only when it changed",
      body: discoveryReport,
      responses: { 202: { description: "accepted", schema: z.object({ changed: z.boolean() }) } },
      handler: async (c, { body }) => {
        const { tenantId, cluster, head } = c.get("agent");
        const { hash: _advisory, ...reported } = body;
        // Every object of the agent's own cluster, named by the control plane, never by the agent (docs/api.md, "Discovered names").
        const result = assignDiscoveredNames(reported, cluster);
        const revision = await store.agents.recordDiscovery(tenantId, cluster, result, sha256(canonicalJson(result)), head);
        await enqueueTranslate(deps.queue, c.get("log"), tenantId, revision);
        return c.json({ changed: revision !== undefined }, 202);
      },
    }),
    route({
      method: "post", path: "/v1/agent/status", tag: "agent", access: "agent", maxBodyBytes: MAX_AGENT_BODY_BYTES,
      summary: "Report the applied generation and per-object results",
      body: statusReport,
      responses: { 202: { description: "accepted", schema: z.object({ changed: z.boolean() }) } },
      handler: async (c, { body }) => {
        const { tenantId, cluster, head } = c.get("agent");
        // An agent can only have applied a generation it fetched, and only published ones are served.
        const latest = head.snapshot?.generation ?? 0;
        if (body.generation > latest) {
          throw new ValidationError("status report names an unpublished generation; nothing was stored", [
            { path: "generation", message: `must be at most ${latest}, the latest generation published for cluster ${cluster}` },
          ]);
        }
        const hash = sha256(canonicalJson({ generation: body.generation, error: body.error ?? null, failed: body.results.filter((r) => r.state === "failed"), certificates: body.certificates ?? [] }));
        const revision = await store.agents.recordReport(tenantId, cluster, body, hash, deps.now());
        await enqueueTranslate(deps.queue, c.get("log"), tenantId, revision);
        return c.json({ changed: revision !== undefined }, 202);
      },
    }),
  ];
}
