import { clusterSnapshot } from "../../clusters/views";
import type { Signer } from "../../signer/signer";
import type { Store } from "../../store/index";
import { type Route, route } from "../route";
import { nameParams, snapshotQuery } from "../schemas";

export interface SnapshotDeps {
  store: Store;
  signer: Signer;
}

/** JWKS and what a cluster gets. */
export function snapshotRoutes(deps: SnapshotDeps): Route[] {
  return [
    route({
      method: "get",
      path: "/.well-known/jwks.json",
      tag: "agent",
      access: "public",
      summary: "Public keys that sign snapshots (the active one first, then those kept for rotation)",
      responses: { 200: { description: "a JWK set" } },
      handler: async (c) => c.json(await deps.signer.jwks(), 200, { "cache-control": "public, max-age=300" }),
    }),
    route({
      method: "get",
      path: "/v1/clusters/{name}/snapshot",
      tag: "clusters",
      access: "viewer",
      summary: "What the cluster gets: objects, generation, the generation its agent applied, sync state (objects=false: all but the objects)",
      params: nameParams,
      query: snapshotQuery,
      responses: { 200: { description: "the snapshot" } },
      handler: async (c, { query, params: { name } }) => c.json(await clusterSnapshot(deps, c.get("tenantId"), name, query.objects !== "false")),
    }),
  ];
}
