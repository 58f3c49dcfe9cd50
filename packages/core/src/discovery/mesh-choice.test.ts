import { describe, expect, it } from "vitest";
import type { Mesh } from "../api/discovery";
import { istioMeshFor, osmMesh } from "./mesh-choice";

function mesh(name: string, type: "istio" | "osm", revision?: string): Mesh {
  const istio = {
    ...(revision ? { revision } : {}),
    trustDomain: "cluster.local",
    istiodServiceAccount: "istiod",
    smartDnsProxyingEnabled: false,
    gateways: [],
  };
  return {
    kind: "Mesh",
    metadata: { name, cluster: "c" },
    spec: { type, cluster: "c", namespace: "ns", version: "1", ...(type === "istio" ? { istio } : {}) },
  };
}
const canary = mesh("a-canary", "istio", "canary");
const main = mesh("b-default", "istio");
const osm = mesh("c-osm", "osm");

describe("istioMeshFor", () => {
  it.each<[string, Mesh[], string | undefined, Mesh | undefined]>([
    ["the revision asked for", [canary, main], "canary", canary],
    ["the default mesh for no revision", [canary, main], undefined, main],
    ["the default mesh for `default`", [canary, main], "default", main],
    ["the default mesh for an unknown revision", [canary, main], "9-99", main],
    ["the first Istio mesh when none is the default", [osm, canary], undefined, canary],
    ["nothing without an Istio mesh", [osm], undefined, undefined],
  ])("picks %s", (_what, meshes, revision, expected) => {
    expect(istioMeshFor(meshes, revision)).toBe(expected);
  });
});

describe("osmMesh", () => {
  it("picks the OSM mesh or nothing", () => {
    expect(osmMesh([canary, osm])).toBe(osm);
    expect(osmMesh([canary, main])).toBeUndefined();
  });
});
