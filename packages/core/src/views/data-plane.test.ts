import { describe, expect, it } from "vitest";
import {
  type DiscoveredDataPlaneView,
  type MeshDataPlaneView,
  dataPlaneFacts,
  dataPlaneOf,
  describeMeshDataPlane,
  waypointOf,
  ztunnelText,
} from "./data-plane";

const MESH = "istiod-istio--system-cluster-amb";
const mesh = (istio: MeshDataPlaneView["spec"]["istio"]): MeshDataPlaneView => ({
  metadata: { name: MESH, cluster: "cluster-amb" },
  spec: { type: "istio", cluster: "cluster-amb", namespace: "istio-system", version: "1.24.2", ...(istio ? { istio } : {}) },
});
const waypoint = { name: "waypoint", namespace: "shop" };
const obj = (name: string, spec: DiscoveredDataPlaneView["spec"]): DiscoveredDataPlaneView => ({ metadata: { name }, spec: { mesh: MESH, ...spec } });

describe("an object's data plane", () => {
  it.each([
    ["an older agent's report (no field): sidecar", {}, "sidecar", "", { dataPlane: "sidecar" }],
    ["sidecar", { dataPlane: "sidecar" }, "sidecar", "", { dataPlane: "sidecar" }],
    ["ambient without a waypoint: says none", { dataPlane: "ambient" }, "ambient", "", { dataPlane: "ambient", waypoint: "none" }],
    ["ambient with a waypoint", { dataPlane: "ambient", waypoint }, "ambient", "shop/waypoint", { dataPlane: "ambient", waypoint: "shop/waypoint" }],
    ["mixed without a waypoint", { dataPlane: "mixed" }, "mixed", "", { dataPlane: "mixed", waypoint: "none" }],
    ["none", { dataPlane: "none" }, "none", "", { dataPlane: "none" }],
  ])("%s", (_, spec, mode, through, facts) => {
    expect(dataPlaneOf(spec)).toBe(mode);
    expect(waypointOf(spec)).toBe(through);
    expect(dataPlaneFacts(spec)).toEqual(facts);
  });
});

describe("a mesh's data plane", () => {
  it("a sidecar mesh: no ztunnel, no waypoint, its workloads counted (an older agent's as sidecar)", () => {
    const view = describeMeshDataPlane(mesh(undefined), [obj("a", {}), obj("b", { dataPlane: "sidecar" })], []);
    expect(view).toEqual({ waypoints: [], workloads: [{ dataPlane: "sidecar", count: 2 }] });
    expect(ztunnelText(view.ztunnel)).toBe("no ztunnel: sidecars only");
  });

  it("an ambient mesh: ztunnel, its waypoints in order with what each serves, workloads per data plane", () => {
    const m = mesh({
      ambient: { ztunnel: { namespace: "istio-system", version: "1.24.2" } },
      waypoints: [
        { name: "waypoint", namespace: "shop", for: "service" },
        { name: "idle", namespace: "apps", for: "workload" },
      ],
    });
    const workloads = [
      obj("cart-shop-deployment", { dataPlane: "ambient" }),
      obj("pay-shop-deployment", { dataPlane: "ambient", waypoint }),
      obj("legacy-shop-deployment", { dataPlane: "sidecar" }),
      obj("batch-shop-deployment", { dataPlane: "none" }),
      // Another mesh's workload is not counted, nor said to use this mesh's waypoint.
      { metadata: { name: "other" }, spec: { mesh: "other-mesh", dataPlane: "ambient", waypoint } },
    ];
    const destinations = [obj("cart-shop", { dataPlane: "ambient", waypoint }), obj("pay-shop", { dataPlane: "ambient" })];
    const view = describeMeshDataPlane(m, workloads, destinations);
    expect(view).toEqual({
      ztunnel: { namespace: "istio-system", version: "1.24.2" },
      waypoints: [
        { name: "idle", namespace: "apps", for: "workload", destinations: [], workloads: [] },
        { name: "waypoint", namespace: "shop", for: "service", destinations: ["cart-shop"], workloads: ["pay-shop-deployment"] },
      ],
      workloads: [
        { dataPlane: "sidecar", count: 1 },
        { dataPlane: "ambient", count: 2 },
        { dataPlane: "none", count: 1 },
      ],
    });
    expect(ztunnelText(view.ztunnel)).toBe("ztunnel 1.24.2 in istio-system");
  });
});
