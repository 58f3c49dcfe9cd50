import { describe, expect, it } from "vitest";
import type { Mesh, StoredResource } from "../../api/index";
import { buildModel } from "../input/model";
import { globalAccess } from "./global-access";

function mesh(version: string, ambient: boolean): Mesh {
  return {
    kind: "Mesh",
    metadata: { name: "istiod-c1", cluster: "c1" },
    spec: {
      type: "istio",
      cluster: "c1",
      namespace: "istio-system",
      version,
      istio: {
        trustDomain: "cluster.local",
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: true,
        gateways: [],
        ...(ambient ? { ambient: { ztunnel: { namespace: "istio-system", version } } } : {}),
        waypoints: [
          { name: "wp", namespace: "shop", for: "service" },
          { name: "all", namespace: "web", for: "all" },
        ],
      },
    },
  };
}

const virtualMesh = { metadata: { name: "vm" } } as StoredResource<"VirtualMesh">;

function drafts(m: Mesh) {
  const model = buildModel({
    tenant: "t",
    clusters: ["c1"],
    meshes: [m],
    workloads: [],
    destinations: [],
    virtualMeshes: [],
    trafficPolicies: [],
    accessPolicies: [],
  });
  return globalAccess({ mesh: m, virtualMesh }, model).map((d) => ({ name: d.name, namespace: d.namespace, spec: d.spec }));
}

describe("globalAccess on the waypoints of an ambient mesh (docs/ambient.md#accesspolicy)", () => {
  it("binds one allow-nothing to the GatewayClass istio-waypoint in the root namespace from Istio 1.25", () => {
    expect(drafts(mesh("1.25.0", true))).toEqual([
      { name: "global-access-control.workloads", namespace: "istio-system", spec: {} },
      {
        name: "global-access-control.waypoints",
        namespace: "istio-system",
        spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "GatewayClass", name: "istio-waypoint" }] },
      },
    ]);
  });

  it("binds an allow-nothing to each waypoint's Gateway, in its namespace, on Istio 1.24", () => {
    expect(drafts(mesh("1.24.3", true)).slice(1)).toEqual([
      {
        name: "global-access-control.waypoint.wp",
        namespace: "shop",
        spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "wp" }] },
      },
      {
        name: "global-access-control.waypoint.all",
        namespace: "web",
        spec: { targetRefs: [{ group: "gateway.networking.k8s.io", kind: "Gateway", name: "all" }] },
      },
    ]);
  });

  it("adds nothing for waypoints where ztunnel does not run", () => {
    expect(drafts(mesh("1.26.0", false)).map((d) => d.name)).toEqual(["global-access-control.workloads"]);
  });
});
