import { destinationMetrics, dnsLabel, graphView, impactList } from "@meshplane/core/base";
import { z } from "zod";
import { DURATION, type MetricsReadDeps, durationSeconds, readDestinationMetrics, readGraph, readImpacts } from "../../metrics/read/index";
import { decodeContinue, encodeContinue } from "../pagination";
import { type Route, route } from "../route";
import { listQuery, nameParams } from "../schemas";

/**
 * Golden signals as the API shows them (docs/api.md#golden-signals): a destination's series, the
 * graph, and the destinations a change hurt. Every handler parses, calls one read of
 * functions/metrics/read and answers.
 */

const DURATION_TEXT = "must be a duration such as 90s, 5m, 1h or 7d (a whole number and one of s, m, h, d)";
const durationText = z.string().max(16, DURATION_TEXT).regex(DURATION, DURATION_TEXT);
const windowParam = (fallback: string, description: string) => durationText.default(fallback).meta({ description });

const seriesQuery = z.strictObject({
  window: windowParam("1h", "how far back from now: at least 1m, at most 30d, whole minutes (1h by default)"),
  step: durationText.optional().meta({
    description:
      "seconds per point: at least 1m, a whole number of hours beyond 48h, dividing the window, at most 1,440 points (by default the smallest that fits)",
  }),
});

const graphQuery = listQuery.extend({
  window: windowParam("5m", "how far back from now: at least 1m, at most 24h, whole minutes (5m by default)"),
  namespace: dnsLabel.optional().meta({ description: "only edges with an end in this namespace" }),
  mesh: z.string().max(253).optional().meta({ description: "only edges with an end in this mesh (a Mesh's name)" }),
  virtualMesh: dnsLabel.optional().meta({ description: "only edges with an end in a mesh of this VirtualMesh" }),
  cluster: dnsLabel.optional().meta({ description: "only edges with an end in this cluster" }),
});

const impactsQuery = z.strictObject({
  window: windowParam("1h", "changes made this far back from now: at least 1m, at most 24h, whole minutes (1h by default)"),
});

/** Where a graph page ends: the key of its last edge. */
const edgePosition = z.string().min(1).max(2048);

/** The metrics routes; `deps.reader` absent (metrics off) answers no traffic. */
export function metricsRoutes(deps: MetricsReadDeps): Route[] {
  return [
    route({
      method: "get",
      path: "/v1/destinations/{name}/metrics",
      tag: "metrics",
      access: "viewer",
      params: nameParams,
      query: seriesQuery,
      summary: "A destination's golden signals over a window: points, the same service in other clusters combined, change markers and impacts",
      responses: {
        200: { description: "the series", schema: destinationMetrics },
        404: { description: "the tenant has no discovered Destination of that name" },
      },
      handler: async (c, { params, query }) =>
        c.json(
          await readDestinationMetrics(deps, c.get("tenantId"), params.name, {
            window: durationSeconds(query.window),
            ...(query.step === undefined ? {} : { step: durationSeconds(query.step) }),
          }),
        ),
    }),
    route({
      method: "get",
      path: "/v1/graph",
      tag: "metrics",
      access: "viewer",
      query: graphQuery,
      summary: "The service graph over a window: workloads and destinations per cluster and mesh, edges with their signals, a page of edges at a time",
      responses: { 200: { description: "one page of edges, in a stable order, and the nodes they reference", schema: graphView } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        const { window, namespace, mesh, virtualMesh, cluster } = query;
        const filter = {
          ...(namespace ? { namespace } : {}),
          ...(mesh ? { mesh } : {}),
          ...(virtualMesh ? { virtualMesh } : {}),
          ...(cluster ? { cluster } : {}),
        };
        const scope = ["graph", tenantId, window, namespace ?? null, mesh ?? null, virtualMesh ?? null, cluster ?? null];
        const after = decodeContinue(query.continue, scope, edgePosition);
        const page = await readGraph(deps, tenantId, {
          window: durationSeconds(window),
          filter,
          limit: query.limit,
          ...(after === undefined ? {} : { after }),
        });
        return c.json({ ...page.view, metadata: page.next === undefined ? {} : { continue: encodeContinue(scope, page.next) } });
      },
    }),
    route({
      method: "get",
      path: "/v1/metrics/impacts",
      tag: "metrics",
      access: "viewer",
      query: impactsQuery,
      summary: "The destinations whose error ratio or p99 rose past the threshold after a change made in the window, newest change first",
      responses: { 200: { description: "the impacts", schema: impactList } },
      handler: async (c, { query }) => c.json(await readImpacts(deps, c.get("tenantId"), durationSeconds(query.window))),
    }),
  ];
}
