import { describe, expect, it } from "vitest";
import { Translator, type TranslateInput, routingChanges, translate, withPlannedRouting } from "../../packages/core/src/translate/index";
import { readCase } from "./cases";
import { loadInput } from "./render";

// A plan's output API per mesh (docs/api.md#plan-a-change), on the golden inputs of the output API.
const input = (name: string): TranslateInput => loadInput(readCase(name, "input.yaml") as string);
const AMBIENT = "istiod-istio--system-cluster-1";
const OLD = "istiod-istio--system-cluster-2";

/** Each cluster's generated objects as `Kind namespace/name`, sorted. */
function objects(output: ReturnType<typeof translate>, cluster: string): string[] {
  return (output.clusters[cluster]?.objects ?? []).map((o) => `${o.kind} ${o.metadata.namespace}/${o.metadata.name}`).sort();
}
const ofKind = (list: string[], kind: string) => list.filter((o) => o.startsWith(`${kind} `));
const rules = (o: ReturnType<typeof translate>) => o.clusters["cluster-1"]?.objects.filter((x) => x.kind === "DestinationRule");

describe("a plan's routing", () => {
  it("changes nothing when it names no mesh", () => {
    const plain = input("gateway-api-routing-choice");
    expect(withPlannedRouting(plain, {})).toBe(plain);
    expect(routingChanges(plain, {})).toEqual({});
  });

  it("takes GATEWAY_API over the VirtualMesh's ISTIO: HTTPRoutes instead of VirtualServices, DestinationRules as they were", () => {
    const plain = input("gateway-api-routing-choice");
    const before = translate(plain);
    const after = translate(withPlannedRouting(plain, { [AMBIENT]: "GATEWAY_API" }));
    expect(ofKind(objects(before, "cluster-1"), "HTTPRoute")).toEqual([]);
    expect(ofKind(objects(after, "cluster-1"), "VirtualService")).toEqual([]);
    expect(ofKind(objects(after, "cluster-1"), "HTTPRoute")).toEqual(["HTTPRoute bookinfo/reviews"]);
    expect(rules(after)).toEqual(rules(before));
    // The other cluster is untouched.
    expect(after.clusters["cluster-2"]).toEqual(before.clusters["cluster-2"]);
    // Through the waypoint, a timeout for every caller now works; one for a caller's identity cannot.
    expect(before.statuses["TrafficPolicy/reviews-timeout"]?.state).toBe("INVALID");
    expect(after.statuses["TrafficPolicy/reviews-timeout"]?.state).toBe("ACCEPTED");
    expect(after.statuses["TrafficPolicy/reviews-timeout-for-client"]?.state).toBe("INVALID");
    expect(routingChanges(plain, { [AMBIENT]: "GATEWAY_API" })).toEqual({
      [AMBIENT]: { cluster: "cluster-1", from: "ISTIO", to: "GATEWAY_API", state: "ACCEPTED" },
    });
  });

  it("takes ISTIO over the default on a mesh in no VirtualMesh", () => {
    const plain = input("ambient-waypoint");
    const after = translate(withPlannedRouting(plain, { [AMBIENT]: "ISTIO" }));
    expect(ofKind(objects(translate(plain), "cluster-1"), "HTTPRoute")).not.toEqual([]);
    expect(ofKind(objects(after, "cluster-1"), "HTTPRoute")).toEqual([]);
    expect(routingChanges(plain, { [AMBIENT]: "ISTIO" })[AMBIENT]).toMatchObject({ from: "GATEWAY_API", to: "ISTIO", state: "ACCEPTED" });
  });

  it("gives the objects a VirtualMesh listing the mesh with routing alone gives (docs/ambient.md#migration, step 4)", () => {
    const plain = input("ambient-waypoint");
    const vm = structuredClone(input("gateway-api-routing-choice").virtualMeshes[0]);
    if (vm === undefined) throw new Error("the case has a VirtualMesh");
    const chosen = translate({ ...plain, virtualMeshes: [vm] });
    expect(chosen.clusters).toEqual(translate(withPlannedRouting(plain, { [AMBIENT]: "ISTIO" })).clusters);
    expect(chosen.statuses["VirtualMesh/sidecar-routing"]?.state).toBe("ACCEPTED");
  });

  it("that an Istio cannot serve is INVALID, as translation says it, and keeps ISTIO", () => {
    const plain = input("gateway-api-routing-choice");
    const asked = translate(withPlannedRouting(plain, { [OLD]: "GATEWAY_API" }));
    expect(asked.clusters).toEqual(translate(plain).clusters);
    const reason = `the plan's routing GATEWAY_API: mesh ${OLD} runs Istio 1.23.4, and meshplane generates Gateway API routes for Istio 1.24 and later; upgrade Istio or plan ISTIO for ${OLD}`;
    expect(asked.statuses["VirtualMesh/old-istio"]).toMatchObject({ state: "INVALID", meshes: { [OLD]: { state: "INVALID", errors: [reason] } } });
    expect(routingChanges(plain, { [OLD]: "GATEWAY_API" })).toEqual({
      [OLD]: { cluster: "cluster-2", from: "ISTIO", to: "ISTIO", state: "INVALID", errors: [reason] },
    });
    // ISTIO asked for the same mesh leaves its VirtualMesh nothing to refuse.
    expect(translate(withPlannedRouting(plain, { [OLD]: "ISTIO" })).statuses["VirtualMesh/old-istio"]?.state).toBe("ACCEPTED");
  });

  it("leaves out names that are no Istio mesh of a registered cluster", () => {
    expect(routingChanges(input("gateway-api-routing-choice"), { nope: "ISTIO" })).toEqual({});
  });

  it("gives the worker's Translator the same output as translate", () => {
    const plain = input("gateway-api-routing-choice");
    const engine = new Translator();
    engine.translate(plain);
    const planned = withPlannedRouting(plain, { [AMBIENT]: "GATEWAY_API", [OLD]: "ISTIO" });
    expect(engine.translate(planned)).toEqual(translate(planned));
  });
});
