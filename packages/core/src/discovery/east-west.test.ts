import { describe, expect, it } from "vitest";
import type { Mesh } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import { attachEastWestGateways } from "./east-west";
import type { KubeGateway } from "./kube";
import { cluster, gateway, istioMesh } from "./test-objects";

const eastWestOf = (gateways: KubeGateway[] | undefined, meshes: Mesh[] = [istioMesh({ ztunnel: true })]) =>
  attachEastWestGateways(indexCluster(cluster(gateways ? { gateways } : {})), meshes).map((m) => m.spec.istio?.ambient?.eastWestGateways);

const NETWORK = "topology.istio.io/network";

describe("attachEastWestGateways (docs/ambient.md#ambient-multicluster)", () => {
  it("reports each istio-east-west Gateway a user made, with its network, sorted by namespace and name", () => {
    const gateways = [
      gateway("istio-eastwestgateway", "istio-system", { [NETWORK]: "west" }, "istio-east-west"),
      gateway("another", "istio-system", {}, "istio-east-west"),
      gateway("bad-network", "gw", { [NETWORK]: "not a label value" }, "istio-east-west"),
      gateway("waypoint", "istio-system", { [NETWORK]: "west" }),
    ];
    expect(eastWestOf(gateways)).toEqual([
      [
        { name: "bad-network", namespace: "gw" },
        { name: "another", namespace: "istio-system" },
        { name: "istio-eastwestgateway", namespace: "istio-system", network: "west" },
      ],
    ]);
  });

  it("leaves out the one meshplane generated (its managed-by label): it is not the user's to reuse", () => {
    const generated = gateway("istio-eastwestgateway", "istio-system", { [NETWORK]: "west", "app.kubernetes.io/managed-by": "meshplane" }, "istio-east-west");
    expect(eastWestOf([generated])).toEqual([undefined]);
  });

  it.each<[string, KubeGateway[] | undefined, Mesh[], unknown[]]>([
    ["a cluster without the Gateway API", undefined, [istioMesh({ ztunnel: true })], [undefined]],
    ["a mesh whose ztunnel does not run", [gateway("ew", "istio-system", {}, "istio-east-west")], [istioMesh()], [undefined]],
    [
      "a revisioned gateway",
      [gateway("ew", "istio-system", { "istio.io/rev": "1-29" }, "istio-east-west")],
      [istioMesh({ revision: "1-29", ztunnel: true }), istioMesh({ ztunnel: true })],
      [[{ name: "ew", namespace: "istio-system" }], undefined],
    ],
  ])("with %s", (_what, gateways, meshes, expected) => {
    expect(eastWestOf(gateways, meshes)).toEqual(expected);
  });
});
