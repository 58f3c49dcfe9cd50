import { destination, mesh, workload } from "@meshplane/core/base";
import { z } from "zod";
import { discoveredPage } from "../../clusters/views";
import type { DiscoveredKind } from "../../store/discovered";
import type { Store } from "../../store/index";
import { listPage, namePosition } from "../pagination";
import { type Route, route } from "../route";
import { discoveredQuery, listOf } from "../schemas";

const COLLECTIONS: { kind: DiscoveredKind; path: string; schema: typeof mesh | typeof workload | typeof destination }[] = [
  { kind: "Mesh", path: "/v1/meshes", schema: mesh },
  { kind: "Workload", path: "/v1/workloads", schema: workload },
  { kind: "Destination", path: "/v1/destinations", schema: destination },
];

/** Where a page of discovered objects ends: a cluster, and a name in it (absent = before its first). */
const position = z.strictObject({ cluster: namePosition, name: namePosition.optional() });

/** Read-only views of what the agents discovered, filterable by cluster, namespace and mesh (functions/clusters/views.ts). */
export function discoveredRoutes(deps: { store: Store }): Route[] {
  return COLLECTIONS.map(({ kind, path, schema }) =>
    route({
      method: "get",
      path,
      tag: "discovery",
      access: "viewer",
      query: discoveredQuery,
      summary: `List discovered ${kind}s, a page at a time (filters: cluster, namespace, mesh)`,
      responses: { 200: { description: "one page of the list, sorted by cluster, then name", schema: listOf(schema) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        const { cluster, namespace, mesh: inMesh } = query;
        const filter = { ...(cluster ? { cluster } : {}), ...(namespace ? { namespace } : {}), ...(inMesh ? { mesh: inMesh } : {}) };
        const scope = ["discovered", tenantId, kind, cluster ?? null, namespace ?? null, inMesh ?? null];
        return c.json(await listPage(query, scope, position, (request) => discoveredPage(deps, tenantId, kind, filter, request)));
      },
    }),
  );
}
