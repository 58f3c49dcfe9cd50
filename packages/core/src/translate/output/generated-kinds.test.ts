import { describe, expect, it } from "vitest";
import { GENERATED_KINDS, apiVersionOf, apiVersionsOf, groupOf, kindRank, rowOf } from "./generated-kinds";
import { SMI_API_VERSIONS, istioApiVersions } from "./versions";

describe("GENERATED_KINDS", () => {
  it("names each kind of a group and each group/plural once", () => {
    expect(new Set(GENERATED_KINDS.map((row) => `${row.group}/${row.kind}`)).size).toBe(GENERATED_KINDS.length);
    expect(new Set(GENERATED_KINDS.map((row) => `${row.group}/${row.plural}`)).size).toBe(GENERATED_KINDS.length);
  });

  // istioApiVersions picks one version per *group*: every kind of a group must be written in the same ones.
  it.each(GENERATED_KINDS.map((row) => [`${row.kind}.${row.group}`, row] as const))("lists %s in the same versions as the rest of its group", (_kind, row) => {
    expect(row.versions).toEqual(GENERATED_KINDS.find((other) => other.group === row.group)?.versions);
  });

  it("covers every apiVersion the translators choose", () => {
    const listed = new Set(GENERATED_KINDS.flatMap(apiVersionsOf));
    const old = istioApiVersions([]);
    const current = istioApiVersions([
      { kind: "Mesh", metadata: { name: "m", cluster: "c" }, spec: { type: "istio", cluster: "c", namespace: "istio-system", version: "1.24.0" } },
    ]);
    for (const apiVersion of [old.networking, old.security, current.networking, current.security, ...Object.values(SMI_API_VERSIONS)])
      expect(listed).toContain(apiVersion);
  });

  it("ranks kinds in table order and any other kind after them all", () => {
    expect(GENERATED_KINDS.map((row) => kindRank(apiVersionsOf(row).at(-1) as string, row.kind))).toEqual(GENERATED_KINDS.map((_, i) => i));
    expect(kindRank("v1", "ConfigMap")).toBe(GENERATED_KINDS.length);
    expect(kindRank("example.com/v1", "VirtualService")).toBe(GENERATED_KINDS.length);
  });

  it("tells a kind of one group from the same kind of another by the apiVersion", () => {
    expect(rowOf("networking.istio.io/v1beta1", "Gateway")?.plural).toBe("gateways");
    expect(rowOf("gateway.networking.k8s.io/v1", "Gateway")?.group).toBe("gateway.networking.k8s.io");
    expect(kindRank("networking.istio.io/v1", "Gateway")).toBeLessThan(kindRank("gateway.networking.k8s.io/v1", "Gateway"));
    expect(rowOf("v1", "Service")).toBeUndefined();
    expect(groupOf("v1")).toBe("");
    expect(apiVersionOf("Gateway", undefined, "gateway.networking.k8s.io")).toBe("gateway.networking.k8s.io/v1");
    expect(() => apiVersionOf("Gateway")).toThrow(/name the group/);
  });

  it("refuses a version it does not list", () => {
    expect(apiVersionOf("TrafficSplit")).toBe("split.smi-spec.io/v1alpha2");
    expect(() => apiVersionOf("VirtualService", "v1alpha3")).toThrow(/not generated in v1alpha3/);
  });
});
