import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { KubeConfig } from "@kubernetes/client-node";
import type { DiscoveryResult } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiscoveryWatch, HTTP_ROUTE_CRD_PATH } from "../../packages/agent/src/discovery/discovery-watch";
import { Kube } from "../../packages/agent/src/kube/kube";
import { type LabCluster, labBinaryPaths, labVersions, serviceAccountIdentity, startCluster } from "../lab/cluster";
import { AGENT_NS, eventually, renderChart } from "./lab-agents";

/**
 * The cluster's Gateway API as the agent reads it (docs/ambient.md#retries-and-the-crd-channel): a
 * lab kube-apiserver with Gateway API's standard channel, the chart's ClusterRole, and the agent's
 * discovery watch under that role's identity. RBAC's resourceNames let it list and watch the
 * HTTPRoute CRD by name and nothing else; installing the experimental channel's HTTPRoute CRD over
 * the standard one turns retry on in the next report; deleting it reports no HTTPRoute.
 */
const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const HTTP_ROUTE = "httproutes.gateway.networking.k8s.io";
const AGENT_TOKEN = `gateway-api-agent-${Math.random().toString(36).slice(2)}`;

type Crd = { metadata: { name: string; resourceVersion?: string } };

/** The experimental channel's HTTPRoute CRD, as scripts/lab/build.sh caches it beside the standard one. */
function experimentalHttpRoute(): Crd {
  const file = join(dirname(labBinaryPaths().gatewayApiCrds), `gateway-api-experimental-${labVersions().GATEWAY_API_VERSION}.json`);
  const crd = (JSON.parse(readFileSync(file, "utf8")) as Crd[]).find((c) => c.metadata.name === HTTP_ROUTE);
  if (!crd) throw new Error(`no ${HTTP_ROUTE} in ${file}`);
  return crd;
}

let cluster: LabCluster;
const asAgent = (path: string) => cluster.request("GET", path, undefined, AGENT_TOKEN);

beforeAll(async () => {
  cluster = await startCluster({
    name: "gateway-api-crd",
    tokens: [{ token: AGENT_TOKEN, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") }],
    crds: { istio: false, smi: false },
  });
  for (const name of [AGENT_NS, "istio-system"])
    await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  const values = { "controlPlane.url": "https://api.meshplane.example.com", "cluster.name": "cluster-1", "bootstrap.token": "mpb_example" };
  const jwks = { "trust.jwks": JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" }] }) };
  for (const obj of renderChart(values, jwks).filter((o) => ["ClusterRole", "ClusterRoleBinding"].includes(o.kind as string))) {
    const res = await cluster.request("POST", `/apis/rbac.authorization.k8s.io/v1/${obj.kind === "ClusterRole" ? "clusterroles" : "clusterrolebindings"}`, obj);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  // An istiod for discovery to report the cluster's Gateway API on.
  await cluster.request("POST", "/api/v1/namespaces/istio-system/configmaps", {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "istio" },
    data: { mesh: "" },
  });
  const labels = { app: "istiod" };
  await cluster.request("POST", "/apis/apps/v1/namespaces/istio-system/deployments", {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "istiod", labels: { "istio.io/rev": "default" } },
    spec: {
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "discovery", image: "docker.io/istio/pilot:1.25.2" }] } },
    },
  });
}, 600_000);
afterAll(() => cluster?.stop());

describe("the agent and the cluster's HTTPRoute CRD", () => {
  it("may list and watch the HTTPRoute CRD by name under the chart's ClusterRole, and no other CRD", async () => {
    // RBAC reaches the authorizer through an informer: wait until the agent may list it.
    const listed = await eventually("the chart's role in effect", async () => {
      const res = await asAgent(HTTP_ROUTE_CRD_PATH);
      return res.status === 200 ? res : undefined;
    });
    expect((listed.body as unknown as { items: Crd[] }).items.map((c) => c.metadata.name)).toEqual([HTTP_ROUTE]);
    expect((await asAgent(`${CRDS}/${HTTP_ROUTE}`)).status).toBe(200);
    expect((await asAgent(`${HTTP_ROUTE_CRD_PATH}&watch=true&timeoutSeconds=1`)).status).toBe(200);
    // Every CRD, another by name, or another by field selector: refused.
    expect((await asAgent(CRDS)).status).toBe(403);
    expect((await asAgent(`${CRDS}/gateways.gateway.networking.k8s.io`)).status).toBe(403);
    expect((await asAgent(`${CRDS}?fieldSelector=metadata.name%3Dgateways.gateway.networking.k8s.io`)).status).toBe(403);
    expect((await asAgent(`${CRDS}?watch=true&timeoutSeconds=1`)).status).toBe(403);
  });

  it("reports the standard channel without retry, then retry once the experimental HTTPRoute CRD is installed, then no HTTPRoute once it is deleted", async () => {
    const kc = new KubeConfig();
    kc.loadFromString(cluster.kubeconfig(AGENT_TOKEN));
    const kube = new Kube(kc);
    const reports: DiscoveryResult[] = [];
    const errors: string[] = [];
    const watch = new DiscoveryWatch({
      kube,
      cluster: "cluster-1",
      debounceMs: 50,
      publish: async (report) => void reports.push(report),
      active: () => true,
      onError: (what, error) => errors.push(`${what}: ${String(error)}`),
    });
    const gatewayApi = () => reports.at(-1)?.meshes[0]?.spec.istio?.gatewayApi;
    try {
      await watch.start();
      expect(await eventually("the first report", async () => gatewayApi())).toEqual({
        httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false },
      });

      const current = (await cluster.request<Crd>("GET", `${CRDS}/${HTTP_ROUTE}`)).body;
      const experimental = experimentalHttpRoute();
      const put = await cluster.request("PUT", `${CRDS}/${HTTP_ROUTE}`, {
        ...experimental,
        metadata: { ...experimental.metadata, resourceVersion: current.metadata.resourceVersion },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(await eventually("the experimental channel's report", async () => (gatewayApi()?.httpRoute?.retry ? gatewayApi() : undefined))).toEqual({
        httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: true },
      });

      expect((await cluster.request("DELETE", `${CRDS}/${HTTP_ROUTE}`)).status).toBe(200);
      expect(await eventually("the report without HTTPRoute", async () => (gatewayApi()?.httpRoute === undefined ? gatewayApi() : undefined))).toEqual({});
      expect(errors).toEqual([]);
    } finally {
      watch.stop();
      kube.close();
    }
  });
});
