import { describe, expect, it } from "vitest";
import type { Mesh, Waypoint } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import type { GatewayListener, KubeGateway } from "./kube";
import { cluster, gateway, istioMesh, namespace } from "./test-objects";
import { attachWaypoints, boundWaypoint } from "./waypoints";

const waypointsOf = (gateways: KubeGateway[] | undefined, meshes: Mesh[] = [istioMesh()]) =>
  attachWaypoints(indexCluster(cluster(gateways ? { gateways } : {})), meshes).map((m) => m.spec.istio?.waypoints);

describe("attachWaypoints", () => {
  it("reports each istio-waypoint Gateway with what it is for, sorted by namespace and name", () => {
    const gateways = [
      gateway("waypoint", "shop", { "istio.io/waypoint-for": "all" }),
      gateway("waypoint", "bookinfo"),
      gateway("app-gw", "bookinfo", { "istio.io/waypoint-for": "workload" }),
      gateway("ingress", "bookinfo", {}, "istio"),
    ];
    expect(waypointsOf(gateways)).toEqual([
      [
        { name: "app-gw", namespace: "bookinfo", for: "workload" },
        { name: "waypoint", namespace: "bookinfo", for: "service" },
        { name: "waypoint", namespace: "shop", for: "all" },
      ],
    ]);
  });

  it.each<[string, string | undefined, Waypoint["for"]]>([
    ["unlabelled", undefined, "service"],
    ["service", "service", "service"],
    ["workload", "workload", "workload"],
    ["all", "all", "all"],
    ["none", "none", "none"],
    ["a value Istio does not know", "everything", "service"],
  ])("reads istio.io/waypoint-for %s", (_what, value, expected) => {
    const labels: Record<string, string> = value === undefined ? {} : { "istio.io/waypoint-for": value };
    expect(waypointsOf([gateway("waypoint", "shop", labels)])).toEqual([[{ name: "waypoint", namespace: "shop", for: expected }]]);
  });

  it.each<[string, KubeGateway[] | undefined, Mesh[], unknown[]]>([
    ["a cluster without the Gateway API", undefined, [istioMesh()], [undefined]],
    ["an Istio older than 1.24", [gateway("waypoint", "shop")], [istioMesh({ version: "1.23.1" })], [undefined]],
    [
      "a revisioned waypoint",
      [gateway("waypoint", "shop", { "istio.io/rev": "1-25" })],
      [istioMesh({ revision: "1-25" }), istioMesh()],
      [[{ name: "waypoint", namespace: "shop", for: "service" }], undefined],
    ],
  ])("with %s", (_what, gateways, meshes, expected) => {
    expect(waypointsOf(gateways, meshes)).toEqual(expected);
  });
});

const use = (name: string, waypointNamespace?: string) => ({
  "istio.io/use-waypoint": name,
  ...(waypointNamespace ? { "istio.io/use-waypoint-namespace": waypointNamespace } : {}),
});

/** A programmed waypoint (its Gateway has an address) whose HBONE listener admits `allowedRoutes`. */
function programmed(name: string, ns: string, allowedRoutes?: GatewayListener["allowedRoutes"]): KubeGateway {
  const listener: GatewayListener = { name: "mesh", port: 15008, protocol: "HBONE", ...(allowedRoutes ? { allowedRoutes } : {}) };
  return { ...gateway(name, ns), spec: { gatewayClassName: "istio-waypoint", listeners: [listener] }, status: { addresses: [{ value: "10.96.0.9" }] } };
}

const WAYPOINTS: Waypoint[] = [
  { name: "svc-wp", namespace: "shop", for: "service" },
  { name: "wl-wp", namespace: "shop", for: "workload" },
  { name: "all-wp", namespace: "shop", for: "all" },
  { name: "off-wp", namespace: "shop", for: "none" },
  { name: "unprogrammed", namespace: "shop", for: "all" },
  { name: "same-only", namespace: "infra", for: "all" },
  { name: "shared", namespace: "infra", for: "all" },
  { name: "for-teams", namespace: "infra", for: "all" },
];
const GATEWAYS = [
  ...["svc-wp", "wl-wp", "all-wp", "off-wp"].map((name) => programmed(name, "shop")),
  gateway("unprogrammed", "shop"),
  programmed("same-only", "infra"),
  programmed("shared", "infra", { namespaces: { from: "All" } }),
  programmed("for-teams", "infra", { namespaces: { from: "Selector", selector: { matchExpressions: [{ key: "team", operator: "In", values: ["a", "b"] }] } } }),
];

/** The waypoint bound to an object of namespace shop labelled `labels`, shop itself labelled `namespaceLabels`. */
function bound(labels: Record<string, string> | undefined, namespaceLabels: Record<string, string>, traffic: "service" | "workload"): string | undefined {
  const index = indexCluster(cluster({ gateways: GATEWAYS, namespaces: [namespace("shop", namespaceLabels)] }));
  const ref = boundWaypoint(index, { namespace: "shop", labels }, traffic, WAYPOINTS);
  return ref && `${ref.namespace}/${ref.name}`;
}

describe("boundWaypoint", () => {
  it.each<[string, Record<string, string> | undefined, Record<string, string>, "service" | "workload", string | undefined]>([
    ["the object's own label", use("svc-wp"), {}, "service", "shop/svc-wp"],
    ["its namespace's label", { app: "a" }, use("svc-wp"), "service", "shop/svc-wp"],
    ["the object's label over its namespace's", use("all-wp"), use("svc-wp"), "service", "shop/all-wp"],
    ["none on the object, opting out of its namespace's", use("none"), use("svc-wp"), "service", undefined],
    ["none on the namespace", undefined, use("none"), "service", undefined],
    ["a waypoint in another namespace admitting all", use("shared", "infra"), {}, "service", "infra/shared"],
    ["another namespace named on the namespace", undefined, use("shared", "infra"), "workload", "infra/shared"],
    ["a waypoint in another namespace admitting only its own (Same by default)", use("same-only", "infra"), {}, "service", undefined],
    ["a waypoint admitting namespaces by a selector that matches", use("for-teams", "infra"), { team: "a" }, "service", "infra/for-teams"],
    ["a waypoint admitting namespaces by a selector that does not", use("for-teams", "infra"), { team: "c" }, "service", undefined],
    ["a use-waypoint-namespace without a waypoint name", { "istio.io/use-waypoint-namespace": "infra" }, {}, "service", undefined],
    ["a waypoint for workloads, asked to serve a service", use("wl-wp"), {}, "service", undefined],
    ["a waypoint for services, asked to serve a workload", use("svc-wp"), {}, "workload", undefined],
    ["a waypoint for workloads, serving a workload", use("wl-wp"), {}, "workload", "shop/wl-wp"],
    ["a waypoint for all, serving a workload", use("all-wp"), {}, "workload", "shop/all-wp"],
    ["a waypoint for no traffic", use("off-wp"), {}, "service", undefined],
    ["a waypoint not programmed yet (no address)", use("unprogrammed"), {}, "service", undefined],
    ["a waypoint that does not exist", use("missing"), {}, "service", undefined],
    ["a waypoint of that name in another namespace only", use("shared"), {}, "service", undefined],
    ["no label anywhere", undefined, {}, "service", undefined],
  ])("%s", (_what, labels, namespaceLabels, traffic, expected) => {
    expect(bound(labels, namespaceLabels, traffic)).toBe(expected);
  });
});
