import { describe, expect, it } from "vitest";
import type { GatewayApiCrds, Mesh, RoutingApi } from "../../api/index";
import { buildModel } from "../input/model";
import type { TranslateInput } from "../types";
import { federate } from "../virtual-mesh/federate";
import type { VirtualMesh } from "../virtual-mesh/membership";
import { defaultRoutingApi, routingApiOf, routingChanges, withPlannedRouting } from "./routing-api";

const WITH_CRD: GatewayApiCrds = { httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } };
const WITHOUT_CRD: GatewayApiCrds = {};

/** An ambient Istio 1.26 mesh of cluster c1 whose cluster's HTTPRoute CRD is as discovery reports it (undefined: not reported). */
function ambientMesh(gatewayApi: GatewayApiCrds | undefined): Mesh {
  return {
    kind: "Mesh",
    metadata: { name: "istiod-c1", cluster: "c1" },
    spec: {
      type: "istio",
      cluster: "c1",
      namespace: "istio-system",
      version: "1.26.1",
      istio: {
        trustDomain: "cluster.local",
        istiodServiceAccount: "istiod",
        smartDnsProxyingEnabled: true,
        gateways: [],
        ambient: { ztunnel: { namespace: "istio-system", version: "1.26.1" } },
        ...(gatewayApi === undefined ? {} : { gatewayApi }),
      },
    },
  };
}

function input(mesh: Mesh, api?: RoutingApi): TranslateInput {
  const virtualMeshes =
    api === undefined
      ? []
      : [
          {
            kind: "VirtualMesh",
            metadata: { name: "vm", uid: "u", generation: 1, createdAt: "2024-01-01T00:00:00Z" },
            spec: { meshes: [{ name: mesh.metadata.name }], routing: { api } },
          } as VirtualMesh,
        ];
  return { tenant: "t", clusters: ["c1"], meshes: [mesh], workloads: [], destinations: [], virtualMeshes, trafficPolicies: [], accessPolicies: [] };
}

/** The mesh's output API and the VirtualMesh's state and errors for it, as translation decides them. */
function decided(given: TranslateInput): { api: RoutingApi; state?: string; errors?: string[] } {
  const { plan, statuses } = federate(buildModel(given));
  const mesh = given.meshes[0] as Mesh;
  const status = statuses["VirtualMesh/vm" as keyof typeof statuses]?.meshes?.[mesh.metadata.name];
  return { api: routingApiOf(mesh, plan.members), ...(status === undefined ? {} : { state: status.state, errors: status.errors }) };
}

describe("the output API and the cluster's HTTPRoute CRD (docs/ambient.md#the-output-api)", () => {
  it("defaults an ambient mesh to GATEWAY_API where the CRD is there or not reported, and to ISTIO where it is reported absent", () => {
    expect(defaultRoutingApi(ambientMesh(WITH_CRD))).toBe("GATEWAY_API");
    expect(defaultRoutingApi(ambientMesh(undefined))).toBe("GATEWAY_API");
    expect(defaultRoutingApi(ambientMesh(WITHOUT_CRD))).toBe("ISTIO");
    expect(decided(input(ambientMesh(WITHOUT_CRD)))).toEqual({ api: "ISTIO" });
  });

  it("keeps a mesh whose VirtualMesh asks for GATEWAY_API without the CRD on ISTIO, INVALID for it, saying to install the CRDs", () => {
    const got = decided(input(ambientMesh(WITHOUT_CRD), "GATEWAY_API"));
    expect(got.api).toBe("ISTIO");
    expect(got.state).toBe("INVALID");
    expect(got.errors).toEqual([
      expect.stringMatching(
        /^routing\.api GATEWAY_API: cluster c1 of mesh istiod-c1 has no HTTPRoute CRD .*install the Gateway API CRDs there .* or set routing\.api ISTIO$/,
      ),
    ]);
    expect(decided(input(ambientMesh(WITH_CRD), "GATEWAY_API"))).toEqual({ api: "GATEWAY_API", state: "ACCEPTED" });
    expect(decided(input(ambientMesh(undefined), "GATEWAY_API"))).toEqual({ api: "GATEWAY_API", state: "ACCEPTED" });
  });

  it("applies the same rule to a plan's routing: GATEWAY_API asked for without the CRD is INVALID and stays ISTIO", () => {
    const without = input(ambientMesh(WITHOUT_CRD));
    expect(routingChanges(without, { "istiod-c1": "GATEWAY_API" })).toEqual({
      "istiod-c1": {
        cluster: "c1",
        from: "ISTIO",
        to: "ISTIO",
        state: "INVALID",
        errors: [expect.stringMatching(/^the plan's routing GATEWAY_API: .*no HTTPRoute CRD.* or plan ISTIO for istiod-c1$/)],
      },
    });
    const planned = withPlannedRouting(without, { "istiod-c1": "GATEWAY_API" });
    const { plan } = federate(buildModel(planned));
    expect(routingApiOf(planned.meshes[0] as Mesh, plan.members)).toBe("ISTIO");
    expect(routingChanges(input(ambientMesh(WITH_CRD)), { "istiod-c1": "ISTIO" })).toEqual({
      "istiod-c1": { cluster: "c1", from: "GATEWAY_API", to: "ISTIO", state: "ACCEPTED" },
    });
  });
});
