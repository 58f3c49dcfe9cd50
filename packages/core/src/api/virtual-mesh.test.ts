import { describe, expect, it } from "vitest";
import { virtualMeshSpec } from "./virtual-mesh";

const meshes = [{ name: "istiod-istio-system-cluster-1" }];

describe("VirtualMesh routing (docs/resources.md#virtualmesh)", () => {
  it.each(["ISTIO", "GATEWAY_API"])("accepts routing.api %s", (api) => {
    expect(virtualMeshSpec.safeParse({ meshes, routing: { api } }).success).toBe(true);
  });

  it("leaves routing out by default", () => {
    expect(virtualMeshSpec.parse({ meshes }).routing).toBeUndefined();
  });

  it.each([[{ waypoints: "ON_DEMAND" }], [{ api: "GATEWAY_API", waypoints: "MANUAL" }], [{ waypoints: "ON_DEMAND", waypointMeshes: [{ name: "m" }] }]])(
    "accepts routing %j (waypoints on demand, docs/ambient.md#waypoints-on-demand)",
    (routing) => {
      expect(virtualMeshSpec.safeParse({ meshes, routing }).success).toBe(true);
    },
  );

  it.each([[{ api: "HTTPROUTE" }], [{}], [{ api: "ISTIO", extra: true }], [{ waypoints: "ALWAYS" }], [{ api: "ISTIO", waypointMeshes: [{ name: "m" }] }]])(
    "refuses routing %j",
    (routing) => {
      expect(virtualMeshSpec.safeParse({ meshes, routing }).success).toBe(false);
    },
  );
});
