import { destination, mesh, workload } from "@meshplane/core";
import type { DiscoveredKind } from "../../store/discovered";
import type { Store } from "../../store/index";
import { type Route, route } from "../route";
import { discoveredQuery, listOf } from "../schemas";

const COLLECTIONS: { kind: DiscoveredKind; path: string; schema: typeof mesh | typeof workload | typeof destination }[] = [
  { kind: "Mesh", path: "/v1/meshes", schema: mesh },
  { kind: "Workload", path: "/v1/workloads", schema: workload },
  { kind: "Destination", path: "/v1/destinations", schema: destination },
];

/** Read-only views of what the agents discovered, filterable by cluster, namespace and mesh. */
export function discoveredRoutes(deps: { store: Store }): Route[] {
  return COLLECTIONS.map(({ kind, path, schema }) =>
    route({
      method: "get", path, tag: "discovery", access: "viewer", query: discoveredQuery,
      summary: `List discovered ${kind}s (filters: cluster, namespace, mesh)`,
      responses: { 200: { description: "the list", schema: listOf(schema) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        const clusters = (await deps.store.clusters.list(tenantId)).map((cl) => cl.name);
        return c.json({ items: await deps.store.discovered.list(tenantId, clusters, kind, query) });
      },
    }),
  );
}
