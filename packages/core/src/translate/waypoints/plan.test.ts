import { describe, expect, it } from "vitest";
import type { Destination, Mesh } from "../../api/index";
import type { TrafficPolicy } from "../istio/destination-state";
import type { TranslateInput } from "../types";
import type { VirtualMesh } from "../virtual-mesh/membership";
import { WaypointPlanner } from "./plan";
import { waypointPlanned } from "./planned";

const MESH: Mesh = {
  kind: "Mesh",
  metadata: { name: "istiod-c1", cluster: "c1" },
  spec: {
    type: "istio",
    cluster: "c1",
    namespace: "istio-system",
    version: "1.29.0",
    istio: {
      trustDomain: "cluster.local",
      istiodServiceAccount: "istiod",
      smartDnsProxyingEnabled: true,
      gateways: [],
      ambient: { ztunnel: { namespace: "istio-system", version: "1.29.0" } },
    },
  },
};

function service(name: string): Destination {
  return {
    kind: "Destination",
    metadata: { name: `${name}-shop-c1`, cluster: "c1" },
    spec: {
      name,
      namespace: "shop",
      cluster: "c1",
      mesh: MESH.metadata.name,
      labels: { app: name },
      selector: { app: name },
      ports: [{ name: "http", port: 80, protocol: "TCP" }],
      subsets: {},
      endpoints: [],
      workloads: [],
      dataPlane: "ambient",
    },
  };
}

const VM = {
  kind: "VirtualMesh",
  metadata: { name: "vm", uid: "u", generation: 1, createdAt: "2024-01-01T00:00:00Z" },
  spec: { meshes: [{ name: MESH.metadata.name }], routing: { api: "GATEWAY_API", waypoints: "ON_DEMAND" } },
} as VirtualMesh;

function timeout(app: string, value: string): TrafficPolicy {
  const spec: TrafficPolicy["spec"] = { destinationSelector: [{ kubeServiceMatcher: { labels: { app } } }], policy: { requestTimeout: value } };
  return { metadata: { name: "timeout" }, spec } as TrafficPolicy;
}

function input(policy: TrafficPolicy): TranslateInput {
  return {
    tenant: "t",
    clusters: ["c1"],
    meshes: [MESH],
    workloads: [],
    destinations: DESTINATIONS,
    virtualMeshes: [VM],
    trafficPolicies: [policy],
    accessPolicies: [],
  };
}

const DESTINATIONS = [service("web"), service("api")];

describe("WaypointPlanner (docs/ambient.md#waypoints-on-demand)", () => {
  it("gives a selected ambient Service the namespace's planned waypoint and plans that waypoint", () => {
    const { input: planned, waypoints } = new WaypointPlanner().plan(input(timeout("web", "5s")));
    const web = planned.destinations[0] as Destination;
    expect(web.spec.waypoint).toEqual({ name: "meshplane-waypoint", namespace: "shop" });
    expect(waypointPlanned(web)).toBe(true);
    expect(planned.destinations[1]).toBe(DESTINATIONS[1]);
    expect(waypoints).toEqual([
      { cluster: "c1", namespace: "shop", name: "meshplane-waypoint", services: ["web"], parents: [{ kind: "TrafficPolicy", name: "timeout" }] },
    ]);
  });

  it("keeps the plan while a policy edit leaves what it reads alone, and plans again when a selector changes", () => {
    const planner = new WaypointPlanner();
    const first = planner.plan(input(timeout("web", "5s")));
    const edited = planner.plan(input(timeout("web", "9s")));
    expect(edited.waypoints).toBe(first.waypoints);
    expect(edited.input.destinations).toBe(first.input.destinations);
    const moved = planner.plan(input(timeout("api", "9s")));
    expect(moved.waypoints[0]?.services).toEqual(["api"]);
    expect((moved.input.destinations[0] as Destination).spec.waypoint).toBeUndefined();
    expect((moved.input.destinations[1] as Destination).spec.waypoint).toEqual({ name: "meshplane-waypoint", namespace: "shop" });
    // Back to web: the copy made the first time, so the engine sees an unchanged destination.
    expect(planner.plan(input(timeout("web", "9s"))).input.destinations[0]).toBe(first.input.destinations[0]);
  });

  it("plans again when discovery hands out another destination (it now has a waypoint of its own)", () => {
    const planner = new WaypointPlanner();
    planner.plan(input(timeout("web", "5s")));
    const own = { ...service("web"), spec: { ...service("web").spec, waypoint: { name: "mine", namespace: "shop" } } };
    const replanned = planner.plan({ ...input(timeout("web", "5s")), destinations: [own, DESTINATIONS[1] as Destination] });
    expect(replanned.waypoints).toEqual([]);
    expect(replanned.input.destinations[0]).toBe(own);
  });
});
