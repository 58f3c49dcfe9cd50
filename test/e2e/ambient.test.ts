import { join } from "node:path";
import type { Destination, Mesh, Workload } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type LabAgent, eventually, startLabAgent } from "./lab-agents";

/**
 * Istio's ambient data plane end to end (docs/ambient.md#what-discovery-sees): a lab kube-apiserver
 * with the Gateway API CRDs, seeded with an ambient namespace (sidecar-less pods, a Service bound to
 * a programmed waypoint Gateway) and ztunnel's DaemonSet; the agent runs under the chart's RBAC, and
 * what it reports is read back from the control plane's API as stored.
 */
let cp: ControlPlane;
let admin: string;
let agent: LabAgent;

const CLUSTER = "cluster-ambient";

async function list<T>(path: string): Promise<T[]> {
  return ((await (await cp.request("GET", path, { token: admin })).json()) as { items: T[] }).items;
}

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("e2e-ambient");
  agent = await startLabAgent(cp, admin, CLUSTER, join(FIXTURES, "istio-ambient.yaml"));
}, 1_800_000);

afterAll(async () => {
  await agent?.stop();
  await cp?.stop();
});

describe("an ambient cluster's agent", () => {
  it("reports the mesh's ztunnel and waypoints, the ambient workloads and the Service's waypoint", async () => {
    const [mesh] = await eventually("the ambient mesh", async () => {
      const meshes = await list<Mesh>("/v1/meshes");
      return meshes[0]?.spec.istio?.waypoints ? meshes : undefined;
    });
    expect(mesh?.metadata.name).toBe("istiod-istio--system-cluster-ambient");
    expect(mesh?.spec.istio?.ambient).toEqual({
      ztunnel: { namespace: "istio-system", version: "1.25.2" },
      multiNetwork: { enabled: true, network: "network-ambient" },
    });
    // istiod's other variables (a secret-looking value, a Secret reference) never leave the agent.
    for (const hidden of ["s3cr3t-token-never-reported", "EXTERNAL_CA_TOKEN", "istiod-remote"]) expect(JSON.stringify(mesh)).not.toContain(hidden);
    // The lab serves Gateway API's standard channel, whose HTTPRoute CRD declares no retry (docs/ambient.md#retries-and-the-crd-channel).
    expect(mesh?.spec.istio?.gatewayApi).toEqual({ httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } });
    expect(mesh?.spec.istio?.waypoints).toEqual([
      { name: "pods-waypoint", namespace: "shop", for: "workload" },
      { name: "waypoint", namespace: "shop", for: "service" },
    ]);

    const workloads = await list<Workload>("/v1/workloads");
    expect(workloads.map((w) => [w.metadata.name, w.spec.dataPlane, w.spec.waypoint])).toEqual([
      ["orders-orders-cluster-ambient-deployment", "sidecar", undefined],
      ["payments-shop-cluster-ambient-deployment", "ambient", { name: "pods-waypoint", namespace: "shop" }],
      ["web-shop-cluster-ambient-deployment", "ambient", undefined],
    ]);

    const web = (await list<Destination>("/v1/destinations?namespace=shop")).find((d) => d.spec.name === "web");
    expect(web?.spec).toMatchObject({
      mesh: mesh?.metadata.name,
      dataPlane: "ambient",
      waypoint: { name: "waypoint", namespace: "shop" },
      workloads: ["web-shop-cluster-ambient-deployment"],
    });
  });

  it("follows a binding removed by hand: the Service without istio.io/use-waypoint has no waypoint", async () => {
    const res = await agent.cluster.request("PATCH", "/api/v1/namespaces/shop/services/web", { metadata: { labels: { "istio.io/use-waypoint": null } } });
    expect(res.status).toBe(200);
    const web = await eventually("web without its waypoint", async () => {
      const found = (await list<Destination>("/v1/destinations?namespace=shop")).find((d) => d.spec.name === "web");
      return found && found.spec.waypoint === undefined ? found : undefined;
    });
    expect(web.spec.dataPlane).toBe("ambient");
  });
});
