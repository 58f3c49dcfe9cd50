import { describe, expect, it } from "vitest";
import type { Mesh } from "../../api/index";
import { istioApiVersions, istioMinor } from "./versions";

const mesh = (version: string): Mesh => ({
  kind: "Mesh",
  metadata: { name: version, cluster: "c" },
  spec: { type: "istio", cluster: "c", namespace: "istio-system", version },
});

describe("istioApiVersions", () => {
  it.each([
    [["1.22.0"], "networking.istio.io/v1"],
    [["1.24.1", "1.23.0"], "networking.istio.io/v1"],
    [["1.21.6"], "networking.istio.io/v1beta1"],
    [["1.24.1", "1.21.0"], "networking.istio.io/v1beta1"],
    [["2.0.0"], "networking.istio.io/v1"],
    [["latest"], "networking.istio.io/v1beta1"],
    [[], "networking.istio.io/v1beta1"],
  ])("meshes %j → %s", (versions, networking) => {
    const api = istioApiVersions(versions.map(mesh));
    expect(api.networking).toBe(networking);
    expect(api.security).toBe(networking.replace("networking", "security"));
  });

  it.each([
    ["1.22.0-beta.1", [1, 22]],
    ["v1.23", [1, 23]],
    ["sha256:abc", undefined],
  ])("istioMinor(%s) = %j", (text, expected) => {
    expect(istioMinor(text)).toEqual(expected);
  });
});
