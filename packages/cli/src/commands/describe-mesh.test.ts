import { describe, expect, it } from "vitest";
import { gatewayApiField, multiNetworkFields } from "./describe-mesh";

describe("the Network and Multi-network fields of `meshplane describe mesh`", () => {
  it.each([
    [
      "on, with a network",
      { enabled: true, network: "network-1" },
      [
        ["Network", "network-1"],
        ["Multi-network", "on (istiod's AMBIENT_ENABLE_MULTI_NETWORK=true)"],
      ],
    ],
    [
      "off, without a network",
      { enabled: false },
      [
        ["Network", "none: namespace istio-system has no topology.istio.io/network label"],
        ["Multi-network", "off: istiod runs without AMBIENT_ENABLE_MULTI_NETWORK=true; ambient multicluster needs it"],
      ],
    ],
    [
      "from a ConfigMap or Secret",
      { enabled: "unknown" as const, network: "n" },
      [
        ["Network", "n"],
        ["Multi-network", "unknown: istiod takes AMBIENT_ENABLE_MULTI_NETWORK from a ConfigMap or Secret, which discovery does not read"],
      ],
    ],
    [
      "an older agent's report",
      undefined,
      [
        ["Network", "unknown: the cluster's agent does not report it (upgrade the agent)"],
        ["Multi-network", "unknown: the cluster's agent does not report it (upgrade the agent)"],
      ],
    ],
  ])("%s", (_, report, fields) => {
    expect(multiNetworkFields("istio-system", report)).toEqual(fields);
  });
});

describe("the Gateway API field of `meshplane describe mesh`", () => {
  it.each([
    [
      "the experimental channel",
      { httpRoute: { bundleVersion: "v1.6.0", channel: "experimental", retry: true } },
      "v1.6.0, experimental channel; HTTPRoute with retry",
    ],
    [
      "the standard channel",
      { httpRoute: { bundleVersion: "v1.6.0", channel: "standard", retry: false } },
      "v1.6.0, standard channel; HTTPRoute without retry: TrafficPolicy retries are INVALID under GATEWAY_API output",
    ],
    ["a CRD without annotations", { httpRoute: { retry: true } }, "unannotated version; HTTPRoute with retry"],
    ["no HTTPRoute CRD", {}, "none: the cluster has no HTTPRoute CRD"],
    ["an older agent's report", undefined, "unknown: the cluster's agent does not report it (upgrade the agent and its chart)"],
  ])("%s", (_, report, field) => {
    expect(gatewayApiField(report)).toBe(field);
  });
});
