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

  it.each([[{ api: "HTTPROUTE" }], [{}], [{ api: "ISTIO", extra: true }]])("refuses routing %j", (routing) => {
    expect(virtualMeshSpec.safeParse({ meshes, routing }).success).toBe(false);
  });
});
