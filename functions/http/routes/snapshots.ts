import type { Signer } from "../../signer/signer";
import type { Store } from "../../store/index";
import { storedPayload } from "../../translation/input";
import { type Route, route } from "../route";
import { nameParams, snapshotQuery } from "../schemas";

export interface SnapshotDeps {
  store: Store;
  signer: Signer;
}

/** JWKS and what a cluster gets. */
export function snapshotRoutes(deps: SnapshotDeps): Route[] {
  const { store } = deps;
  return [
    route({
      method: "get", path: "/.well-known/jwks.json", tag: "agent", access: "public",
      summary: "Public keys that sign snapshots (the active one first, then those kept for rotation)",
      responses: { 200: { description: "a JWK set" } },
      handler: async (c) => c.json(await deps.signer.jwks(), 200, { "cache-control": "public, max-age=300" }),
    }),
    route({
      method: "get", path: "/v1/clusters/{name}/snapshot", tag: "clusters", access: "viewer",
      summary: "What the cluster gets: objects, generation, the generation its agent applied, sync state (objects=false: all but the objects)",
      params: nameParams,
      query: snapshotQuery,
      responses: { 200: { description: "the snapshot" } },
      handler: async (c, { query, params: { name } }) => {
        const tenantId = c.get("tenantId");
        await store.clusters.get(tenantId, name);
        const head = await store.snapshots.head(tenantId, name, true);
        const report = (await store.agents.reports(tenantId, [name])).get(name);
        const snapshot = head?.snapshot;
        // The body (gzipped JWS chunks) is read only when the objects are asked for.
        const payload = snapshot && query.objects !== "false" ? await storedPayload(store, tenantId, name, snapshot) : undefined;
        return c.json({
          cluster: name,
          generation: snapshot?.generation ?? 0,
          hash: snapshot?.hash ?? null,
          signedAt: snapshot?.signedAt ?? null,
          appliedGeneration: head?.appliedGeneration ?? 0,
          inSync: (head?.appliedGeneration ?? 0) === (snapshot?.generation ?? 0) && (report?.failures.length ?? 0) === 0,
          lastSeenAt: head?.lastSeenAt ?? null,
          // The agent has reported what it found in the cluster at least once (meshes may still be none).
          discoveryReported: head?.discoveryHash !== undefined,
          failures: report?.failures ?? [],
          agentError: report?.error ?? null,
          objects: payload?.objects ?? [],
          certificates: payload?.certificates ?? [],
        });
      },
    }),
  ];
}
