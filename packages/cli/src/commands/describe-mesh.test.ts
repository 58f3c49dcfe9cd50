import { describe, expect, it } from "vitest";
import { multiNetworkFields } from "./describe-mesh";

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
