import { authoringGrant } from "@meshplane/core/authoring";
import { setClusterAuthoring } from "../../clusters/authoring";
import { type RegistrationDeps, deregisterCluster, issueBootstrapToken, registerCluster } from "../../clusters/registration";
import { clusterPage, clusterView as viewOf } from "../../clusters/views";
import type { Signer } from "../../signer/signer";
import { withLog } from "../context";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { bootstrapView, clusterView as clusterSchema, listOf, listQuery, nameParams, registerClusterBody } from "../schemas";

/** A cluster as the API shows it, with its effective grant (docs/gitops.md#grants): always present here. */
const clusterView = clusterSchema.extend({ authoring: clusterSchema.shape.authoring.unwrap() });

export interface ClusterDeps extends Omit<RegistrationDeps, "log" | "signer"> {
  signer: Signer;
  /** The URL agents reach the API at; undefined = the origin of the registering request. */
  publicUrl?: string;
}

/** Cluster registration (admin) and reads (viewer), over functions/clusters. */
export function clusterRoutes(deps: ClusterDeps) {
  const apiUrl = (requestUrl: string) => deps.publicUrl ?? new URL(requestUrl).origin;
  return [
    route({
      method: "post",
      path: "/v1/clusters",
      tag: "clusters",
      access: "admin",
      summary: "Register a cluster; returns a one-time bootstrap token and the helm install line",
      body: registerClusterBody,
      responses: { 201: { description: "registered", schema: bootstrapView } },
      handler: async (c, { body }) => c.json(await registerCluster(withLog(c, deps), c.get("tenantId"), body, apiUrl(c.req.url)), 201),
    }),
    route({
      method: "get",
      path: "/v1/clusters",
      tag: "clusters",
      access: "viewer",
      summary: "List clusters, a page at a time",
      query: listQuery,
      responses: { 200: { description: "one page of the clusters, sorted by name", schema: listOf(clusterView) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        return c.json(await listPage(query, ["clusters", tenantId], namePosition, (request) => clusterPage(deps, tenantId, request)));
      },
    }),
    route({
      method: "get",
      path: "/v1/clusters/{name}",
      tag: "clusters",
      access: "viewer",
      summary: "Get a cluster, with its shared-trust meshes' certificate state",
      params: nameParams,
      responses: { 200: { description: "the cluster", schema: clusterView } },
      handler: async (c, { params: { name } }) => c.json(await viewOf(deps, c.get("tenantId"), name)),
    }),
    route({
      method: "post",
      path: "/v1/clusters/{name}/bootstrap-token",
      tag: "clusters",
      access: "admin",
      summary: "Issue a new bootstrap token for a cluster (the previous one stops working)",
      params: nameParams,
      responses: { 201: { description: "issued", schema: bootstrapView } },
      handler: async (c, { params: { name } }) => c.json(await issueBootstrapToken(withLog(c, deps), c.get("tenantId"), name, apiUrl(c.req.url)), 201),
    }),
    route({
      method: "put",
      path: "/v1/clusters/{name}/authoring",
      tag: "clusters",
      access: "admin",
      summary: "Set what a cluster may author: the kinds, and the clusters its resources may select (docs/gitops.md#grants)",
      params: nameParams,
      body: authoringGrant,
      responses: { 200: { description: "the cluster with its grant", schema: clusterView } },
      handler: async (c, { params: { name }, body }) => c.json(await setClusterAuthoring(withLog(c, deps), c.get("tenantId"), name, body)),
    }),
    route({
      method: "delete",
      path: "/v1/clusters/{name}/authoring",
      tag: "clusters",
      access: "admin",
      summary: "Put a cluster's grant back to the default: policies within the cluster itself",
      params: nameParams,
      responses: { 200: { description: "the cluster with the default grant", schema: clusterView } },
      handler: async (c, { params: { name } }) => c.json(await setClusterAuthoring(withLog(c, deps), c.get("tenantId"), name, undefined)),
    }),
    route({
      method: "delete",
      path: "/v1/clusters/{name}",
      tag: "clusters",
      access: "admin",
      summary: "Deregister a cluster, forget what was discovered in it and delete the resources it authored",
      params: nameParams,
      responses: { 204: { description: "deregistered" } },
      handler: async (c, { params: { name } }) => {
        await deregisterCluster(withLog(c, deps), c.get("tenantId"), name);
        return c.body(null, 204);
      },
    }),
  ];
}
