import { describe, expect, it } from "vitest";
import { API_VERSION } from "../api/common";
import type { Mesh } from "../api/discovery";
import type { DestinationSelector } from "../api/selectors";
import type { ResourceSource } from "../api/source";
import type { StoredResource } from "../api/resource";
import type { TranslateInput } from "../translate/types";
import { GrantStep } from "./apply";

const source = (cluster: string, name = "cart-retries"): ResourceSource => ({ cluster, namespace: "shop", name, uid: `uid-${name}`, generation: 3 });

function tp(name: string, destinationSelector?: DestinationSelector[], from?: ResourceSource): StoredResource<"TrafficPolicy"> {
  return {
    apiVersion: API_VERSION,
    kind: "TrafficPolicy",
    metadata: {
      name,
      uid: `u-${name}`,
      generation: 2,
      resourceVersion: "7",
      createdAt: "2026-11-27T10:00:00Z",
      updatedAt: "2026-11-27T10:00:00Z",
      ...(from ? { source: from } : {}),
    },
    spec: { ...(destinationSelector ? { destinationSelector } : {}), policy: { requestTimeout: "5s" } },
    status: { observedGeneration: 2, state: "ACCEPTED" },
  } as StoredResource<"TrafficPolicy">;
}

function vm(name: string, meshes: string[], from: ResourceSource): StoredResource<"VirtualMesh"> {
  return { ...tp(name, undefined, from), kind: "VirtualMesh", spec: { meshes: meshes.map((m) => ({ name: m })) } } as unknown as StoredResource<"VirtualMesh">;
}

const mesh = (name: string, cluster: string) => ({ metadata: { name }, spec: { cluster } }) as unknown as Mesh;

function input(parts: Partial<TranslateInput>): TranslateInput {
  return {
    tenant: "t",
    clusters: ["east", "west"],
    meshes: [mesh("istiod-east", "east"), mesh("istiod-west", "west")],
    workloads: [],
    destinations: [],
    virtualMeshes: [],
    trafficPolicies: [],
    accessPolicies: [],
    ...parts,
  };
}

const authored = tp("cart-retries.shop.east", undefined, source("east"));

describe("GrantStep: authored resources within their cluster's grant (docs/gitops.md#grants)", () => {
  it("passes an input without authored resources through as it is", () => {
    const given = input({ trafficPolicies: [tp("api-made")] });
    const { input: out, refused } = new GrantStep().apply(given);
    expect(out).toBe(given);
    expect(refused).toEqual([]);
  });

  it("clips an authored policy to its cluster, and leaves API-made resources the same objects", () => {
    const api = tp("api-made");
    const { input: out, refused } = new GrantStep().apply(input({ trafficPolicies: [api, authored] }));
    expect(refused).toEqual([]);
    expect(out.trafficPolicies[0]).toBe(api);
    expect(out.trafficPolicies[1]?.spec.destinationSelector).toEqual([{ kubeServiceMatcher: { clusters: ["east"] } }]);
    expect(out.trafficPolicies[1]?.metadata).toBe(authored.metadata);
    expect(authored.spec.destinationSelector).toBeUndefined();
  });

  it("clips to a widened grant, and not at all under *", () => {
    const widened = new GrantStep().apply(input({ trafficPolicies: [authored], grants: { east: { kinds: ["TrafficPolicy"], clusters: ["east", "west"] } } }));
    expect(widened.input.trafficPolicies[0]?.spec.destinationSelector).toEqual([{ kubeServiceMatcher: { clusters: ["east", "west"] } }]);
    const every = new GrantStep().apply(input({ trafficPolicies: [authored], grants: { east: { kinds: ["TrafficPolicy"], clusters: ["*"] } } }));
    expect(every.input.trafficPolicies[0]).toBe(authored);
  });

  it("refuses what lies outside: INVALID at the resource's generation, with every reason, and not translated", () => {
    const outside = tp(
      "cart.shop.east",
      [{ kubeServiceRefs: { services: [{ cluster: "west", namespace: "shop", name: "cart" }] } }, { kubeServiceMatcher: { clusters: ["west"] } }],
      source("east", "cart"),
    );
    const { input: out, refused } = new GrantStep().apply(input({ trafficPolicies: [outside, authored] }));
    expect(out.trafficPolicies.map((r) => r.metadata.name)).toEqual(["cart-retries.shop.east"]);
    expect(refused).toHaveLength(1);
    expect(refused[0]?.resource).toBe(outside);
    expect(refused[0]?.status).toMatchObject({ observedGeneration: 2, state: "INVALID" });
    expect(refused[0]?.status.errors).toEqual([
      "spec.destinationSelector[0].kubeServiceRefs.services[0].cluster: names a service of cluster west, outside cluster east's grant (kinds: TrafficPolicy, AccessPolicy; clusters: east)",
      "spec.destinationSelector[1].kubeServiceMatcher.clusters[0]: selects cluster west, outside cluster east's grant (kinds: TrafficPolicy, AccessPolicy; clusters: east)",
    ]);
  });

  it("refuses a kind no longer granted, and everything of a cluster no longer registered", () => {
    const noKinds = new GrantStep().apply(input({ trafficPolicies: [authored], grants: { east: { kinds: [], clusters: ["east"] } } }));
    expect(noKinds.input.trafficPolicies).toEqual([]);
    expect(noKinds.refused[0]?.status.errors?.[0]).toMatch(/^kind: cluster east's grant \(kinds: none; clusters: east\) does not allow TrafficPolicy/);
    const gone = new GrantStep().apply(input({ clusters: ["west"], trafficPolicies: [authored] }));
    expect(gone.refused[0]?.status.errors).toEqual(["cluster east, where this resource was authored, is no longer registered"]);
  });

  it("refuses a VirtualMesh by default, and one naming another cluster's mesh under a grant of its own cluster", () => {
    const own = vm("mesh.shop.east", ["istiod-east"], source("east", "mesh"));
    const both = vm("both.shop.east", ["istiod-east", "istiod-west"], source("east", "both"));
    expect(new GrantStep().apply(input({ virtualMeshes: [own] })).refused.map((r) => r.resource)).toEqual([own]);
    const granted = new GrantStep().apply(input({ virtualMeshes: [own, both], grants: { east: { kinds: ["VirtualMesh"], clusters: ["east"] } } }));
    expect(granted.input.virtualMeshes).toEqual([own]);
    expect(granted.refused[0]?.status.errors).toEqual([
      "spec.meshes[1].name: names mesh istiod-west of cluster west, outside cluster east's grant (kinds: VirtualMesh; clusters: east)",
    ]);
  });

  it("keeps its answer for an unchanged resource and grant (the same object), and computes again when the grant changes", () => {
    const step = new GrantStep();
    const first = step.apply(input({ trafficPolicies: [authored] })).input.trafficPolicies[0];
    expect(step.apply(input({ trafficPolicies: [authored] })).input.trafficPolicies[0]).toBe(first);
    const widened = step.apply(input({ trafficPolicies: [authored], grants: { east: { kinds: ["TrafficPolicy"], clusters: ["west", "east"] } } }));
    expect(widened.input.trafficPolicies[0]).not.toBe(first);
    expect(widened.input.trafficPolicies[0]?.spec.destinationSelector).toEqual([{ kubeServiceMatcher: { clusters: ["west", "east"] } }]);
    const refusedTwice = [0, 1].map(() => step.apply(input({ clusters: ["west"], trafficPolicies: [authored] })).refused[0]);
    expect(refusedTwice[0]).toBe(refusedTwice[1]);
  });
});
