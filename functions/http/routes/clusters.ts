import type { TranslateQueue } from "../../queue/translate-queue";
import type { Signer } from "../../signer/signer";
import type { Cluster, Store } from "../../store/index";
import { enqueueTranslate } from "../enqueue";
import { listPage, namePosition } from "../pagination";
import { route } from "../route";
import { bootstrapView, clusterView, listOf, listQuery, nameParams, registerClusterBody } from "../schemas";

export interface ClusterDeps {
  store: Store;
  signer: Signer;
  queue: TranslateQueue;
  now: () => Date;
  /** The URL agents reach the API at; undefined = the origin of the registering request. */
  publicUrl?: string;
  /** The push channel's URL when it has its own (AWS); undefined = on the API's origin. */
  pushUrl?: string;
}

/**
 * The chart values that install a cluster's agent: where the control plane is, the cluster's name, the
 * one-time bootstrap token, and the signing keys pinned so the agent never trusts the network for them.
 */
export function agentHelmValues(apiUrl: string, cluster: string, token: string, jwks: { keys: unknown[] }, pushUrl?: string) {
  return {
    // A control plane served over plain http is a development one (`npm start`); say so explicitly.
    controlPlane: { url: apiUrl, ...(apiUrl.startsWith("http://") ? { allowInsecure: true } : {}), ...(pushUrl ? { pushUrl } : {}) },
    cluster: { name: cluster },
    bootstrap: { token },
    trust: { jwks },
  };
}

/** The same values as the one line an operator runs against the cluster. The token expires and works once. */
export function helmInstallLine(values: ReturnType<typeof agentHelmValues>): string {
  return [
    "helm upgrade --install meshplane-agent packages/agent/chart",
    "--namespace meshplane-system --create-namespace",
    `--set controlPlane.url=${values.controlPlane.url}`,
    ...(values.controlPlane.allowInsecure ? ["--set controlPlane.allowInsecure=true"] : []),
    ...(values.controlPlane.pushUrl ? [`--set controlPlane.pushUrl=${values.controlPlane.pushUrl}`] : []),
    `--set cluster.name=${values.cluster.name}`,
    `--set-string bootstrap.token=${values.bootstrap.token}`,
    `--set-json 'trust.jwks=${JSON.stringify(values.trust.jwks)}'`,
  ].join(" ");
}

/** A cluster as the API shows it: with each shared-trust mesh's `cacerts` as its agent last reported them. */
function withCertificates<C extends object, R>(cluster: C, certificates: R | undefined): C & { certificates?: R } {
  return certificates === undefined ? cluster : { ...cluster, certificates };
}

/** Cluster registration (admin) and reads (viewer). */
export function clusterRoutes(deps: ClusterDeps) {
  const { store } = deps;
  const apiUrl = (requestUrl: string) => deps.publicUrl ?? new URL(requestUrl).origin;
  const bootstrapResponse = async (cluster: Cluster, token: string, expiresAt: string, url: string) => {
    const helmValues = agentHelmValues(apiUrl(url), cluster.name, token, await deps.signer.jwks(), deps.pushUrl);
    return { cluster, bootstrapToken: token, expiresAt, helmInstall: helmInstallLine(helmValues), helmValues };
  };
  return [
    route({
      method: "post", path: "/v1/clusters", tag: "clusters", access: "admin",
      summary: "Register a cluster; returns a one-time bootstrap token and the helm install line",
      body: registerClusterBody,
      responses: { 201: { description: "registered", schema: bootstrapView } },
      handler: async (c, { body }) => {
        const { cluster, bootstrap, revision } = await store.clusters.register(c.get("tenantId"), body, deps.now());
        c.get("log").info("cluster registered", { cluster: cluster.name });
        await enqueueTranslate(deps.queue, c.get("log"), c.get("tenantId"), revision);
        return c.json(await bootstrapResponse(cluster, bootstrap.token, bootstrap.expiresAt, c.req.url), 201);
      },
    }),
    route({
      method: "get", path: "/v1/clusters", tag: "clusters", access: "viewer", summary: "List clusters, a page at a time", query: listQuery,
      responses: { 200: { description: "one page of the clusters, sorted by name", schema: listOf(clusterView) } },
      handler: async (c, { query }) => {
        const tenantId = c.get("tenantId");
        const body = await listPage(query, ["clusters", tenantId], namePosition, (request) => store.clusters.page(tenantId, request));
        // Each cluster's shared-trust certificates, as on GET /v1/clusters/{name}: one batch read per page.
        const reports = await store.agents.reports(tenantId, body.items.map((cl) => cl.name));
        return c.json({ ...body, items: body.items.map((cl) => withCertificates(cl, reports.get(cl.name)?.certificates)) });
      },
    }),
    route({
      method: "get", path: "/v1/clusters/{name}", tag: "clusters", access: "viewer", summary: "Get a cluster, with its shared-trust meshes' certificate state",
      params: nameParams,
      responses: { 200: { description: "the cluster", schema: clusterView } },
      handler: async (c, { params: { name } }) => {
        const cluster = await store.clusters.get(c.get("tenantId"), name);
        // The trust side of the cluster view: each shared-trust mesh's cacerts as its agent reported it.
        return c.json(withCertificates(cluster, (await store.agents.reports(c.get("tenantId"), [name])).get(name)?.certificates));
      },
    }),
    route({
      method: "post", path: "/v1/clusters/{name}/bootstrap-token", tag: "clusters", access: "admin",
      summary: "Issue a new bootstrap token for a cluster (the previous one stops working)",
      params: nameParams,
      responses: { 201: { description: "issued", schema: bootstrapView } },
      handler: async (c, { params: { name } }) => {
        const bootstrap = await store.clusters.rotateBootstrap(c.get("tenantId"), name, deps.now());
        const cluster = await store.clusters.get(c.get("tenantId"), name);
        return c.json(await bootstrapResponse(cluster, bootstrap.token, bootstrap.expiresAt, c.req.url), 201);
      },
    }),
    route({
      method: "delete", path: "/v1/clusters/{name}", tag: "clusters", access: "admin",
      summary: "Deregister a cluster and forget what was discovered in it",
      params: nameParams,
      responses: { 204: { description: "deregistered" } },
      handler: async (c, { params: { name } }) => {
        const revision = await store.clusters.deregister(c.get("tenantId"), name);
        c.get("log").info("cluster deregistered", { cluster: name });
        await enqueueTranslate(deps.queue, c.get("log"), c.get("tenantId"), revision);
        return c.body(null, 204);
      },
    }),
  ];
}
