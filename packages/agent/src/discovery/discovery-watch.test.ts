import type { DiscoveryResult } from "@meshplane/core";
import { afterEach, describe, expect, it } from "vitest";
import { KubeError } from "../kube/failure";
import type { ListPage, WatchEvent } from "../kube/kube";
import { DiscoveryWatch, HTTP_ROUTE_CRD_PATH, SOURCES } from "./discovery-watch";

const GATEWAYS = "/apis/gateway.networking.k8s.io/v1/gateways";

/** Gateway API v1.6.0's standard HTTPRoute CRD, cut to what discovery reads: no rule's retry. */
const HTTP_ROUTE_CRD = {
  metadata: {
    name: "httproutes.gateway.networking.k8s.io",
    annotations: { "gateway.networking.k8s.io/bundle-version": "v1.6.0", "gateway.networking.k8s.io/channel": "standard" },
  },
  spec: {
    versions: [
      {
        name: "v1",
        served: true,
        schema: { openAPIV3Schema: { properties: { spec: { properties: { rules: { items: { properties: { matches: {}, timeouts: {} } } } } } } } },
      },
    ],
  },
};

/** An istiod 1.25 with its ztunnel and one programmed waypoint, as the apiserver lists them. */
const OBJECTS: Record<string, unknown[]> = {
  "/apis/apps/v1/deployments": [
    {
      metadata: { name: "istiod", namespace: "istio-system", labels: { "istio.io/rev": "default" } },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: "discovery",
                image: "docker.io/istio/pilot:1.25.2",
                // Discovery reads AMBIENT_ENABLE_MULTI_NETWORK alone; the others must never leave the agent.
                env: [
                  { name: "GITHUB_TOKEN", value: "ghp_secretLookingValue0123456789" },
                  { name: "AMBIENT_ENABLE_MULTI_NETWORK", value: "true" },
                  { name: "CA_KEY", valueFrom: { secretKeyRef: { name: "istiod-ca-secret", key: "key" } } },
                ],
                envFrom: [{ secretRef: { name: "istiod-extra-env" } }],
              },
            ],
          },
        },
      },
    },
  ],
  "/api/v1/namespaces": [{ metadata: { name: "istio-system", labels: { "topology.istio.io/network": "net-1", "team-secret": "hush-42" } } }],
  "/apis/apps/v1/daemonsets": [
    {
      metadata: { name: "ztunnel", namespace: "istio-system" },
      spec: { template: { spec: { containers: [{ name: "istio-proxy", image: "istio/ztunnel:1.25.2" }] } } },
    },
  ],
  "/api/v1/configmaps": [{ metadata: { name: "istio", namespace: "istio-system" }, data: { mesh: "" } }],
  [GATEWAYS]: [
    { metadata: { name: "waypoint", namespace: "shop" }, spec: { gatewayClassName: "istio-waypoint" }, status: { addresses: [{ value: "10.0.0.9" }] } },
  ],
  [HTTP_ROUTE_CRD_PATH]: [HTTP_ROUTE_CRD],
};

/** A fake apiserver: every list answers OBJECTS (or an empty list), but for the paths `refuse` names, which answer that status. */
function fakeKube(refuse: Record<string, number> = {}) {
  const listed: string[] = [];
  return {
    listed,
    async listPath(path: string): Promise<ListPage> {
      listed.push(path);
      const status = refuse[path];
      if (status !== undefined) throw new KubeError(status, status === 404 ? "the server could not find the requested resource" : "forbidden");
      return { items: (OBJECTS[path] ?? []) as ListPage["items"], metadata: { resourceVersion: "1" } };
    },
    async watch(_path: string, _rv: string, _onEvent: (e: WatchEvent) => void, _done: (error: unknown) => void) {
      return () => undefined;
    },
  };
}

let watch: DiscoveryWatch | undefined;
afterEach(() => watch?.stop());

/** Starts a watch over `kube` and resolves with its first published report and the errors it logged. */
async function firstReport(kube: ReturnType<typeof fakeKube>, optionalRetryMs?: number) {
  const errors: string[] = [];
  const reports: DiscoveryResult[] = [];
  watch = new DiscoveryWatch({
    kube,
    cluster: "c1",
    debounceMs: 1,
    publish: async (report) => void reports.push(report),
    active: () => true,
    onError: (what) => errors.push(what),
    ...(optionalRetryMs === undefined ? {} : { optionalRetryMs }),
  });
  await watch.start();
  await expect.poll(() => reports.length).toBeGreaterThan(0);
  return { report: reports[0] as DiscoveryResult, errors, reports };
}

describe("DiscoveryWatch", () => {
  it("watches Gateways beside the rest, and reports ztunnel and the waypoints", async () => {
    expect(SOURCES.find((s) => s.list === "gateways")).toEqual({ list: "gateways", path: GATEWAYS, optional: true });
    const { report, errors } = await firstReport(fakeKube());
    expect(report.meshes[0]?.spec.istio).toMatchObject({
      ambient: { ztunnel: { namespace: "istio-system", version: "1.25.2" } },
      waypoints: [{ name: "waypoint", namespace: "shop", for: "service" }],
    });
    expect(errors).toEqual([]);
  });

  it("reports istiod's AMBIENT_ENABLE_MULTI_NETWORK and its network, and nothing else of its environment or namespace", async () => {
    const { report } = await firstReport(fakeKube());
    expect(report.meshes[0]?.spec.istio?.ambient?.multiNetwork).toEqual({ enabled: true, network: "net-1" });
    const sent = JSON.stringify(report);
    for (const hidden of ["ghp_secretLookingValue", "GITHUB_TOKEN", "CA_KEY", "istiod-ca-secret", "istiod-extra-env", "hush-42", "env"]) {
      expect(sent).not.toContain(hidden);
    }
  });

  it("reports without waypoints and logs nothing where the Gateway API is not served, and lists it again later", async () => {
    const kube = fakeKube({ [GATEWAYS]: 404 });
    const { report, errors } = await firstReport(kube, 20);
    expect(report.meshes[0]?.spec.istio?.waypoints).toBeUndefined();
    expect(report.meshes[0]?.spec.istio?.ambient).toBeDefined();
    expect(errors).toEqual([]);
    await expect.poll(() => kube.listed.filter((p) => p === GATEWAYS).length).toBeGreaterThan(1);
  });

  it("reports the rest, and logs the refusal, when the agent may not list Gateways", async () => {
    const { report, errors } = await firstReport(fakeKube({ [GATEWAYS]: 403 }));
    expect(report.meshes).toHaveLength(1);
    expect(errors).toEqual(["watch gateways"]);
  });

  it("reads the HTTPRoute CRD alone, by name, and reports the cluster's Gateway API on the mesh", async () => {
    expect(HTTP_ROUTE_CRD_PATH).toBe(
      "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3Dhttproutes.gateway.networking.k8s.io",
    );
    expect(SOURCES.find((s) => s.list === "customResourceDefinitions")).toEqual({
      list: "customResourceDefinitions",
      path: HTTP_ROUTE_CRD_PATH,
      optional: true,
    });
    const { report, errors } = await firstReport(fakeKube());
    expect(report.meshes[0]?.spec.istio?.gatewayApi).toEqual({ httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } });
    expect(errors).toEqual([]);
  });

  it("reports the Gateway API as unknown, and logs the refusal, when the chart does not let it read the CRD", async () => {
    const { report, errors } = await firstReport(fakeKube({ [HTTP_ROUTE_CRD_PATH]: 403 }));
    expect(report.meshes[0]?.spec.istio).not.toHaveProperty("gatewayApi");
    expect(errors).toEqual(["watch customResourceDefinitions"]);
  });

  it("publishes nothing while a list it needs fails", async () => {
    const errors: string[] = [];
    let published = 0;
    watch = new DiscoveryWatch({
      kube: fakeKube({ "/api/v1/pods": 403 }),
      cluster: "c1",
      debounceMs: 1,
      publish: async () => void published++,
      active: () => true,
      onError: (what) => errors.push(what),
    });
    await watch.start();
    await new Promise((r) => setTimeout(r, 30));
    expect([published, errors[0]]).toEqual([0, "watch pods"]);
  });
});
