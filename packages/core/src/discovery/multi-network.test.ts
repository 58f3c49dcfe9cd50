import { describe, expect, it } from "vitest";
import type { Mesh } from "../api/discovery";
import { discoveryResult } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import type { Container, EnvVar } from "./kube";
import { attachMultiNetwork, multiNetworkFlag } from "./multi-network";
import { cluster, istioMesh, istiod, namespace } from "./test-objects";

const pilot = (env?: EnvVar[], envFrom?: unknown[]): Container => ({
  name: "discovery",
  image: "docker.io/istio/pilot:1.29.1",
  ...(env ? { env } : {}),
  ...(envFrom ? { envFrom } : {}),
});
const flag = (value: string): EnvVar => ({ name: "AMBIENT_ENABLE_MULTI_NETWORK", value });

describe("multiNetworkFlag", () => {
  it.each<[string, Container, boolean | "unknown"]>([
    ["unset: Istio's default", pilot(), false],
    ["true", pilot([flag("true")]), true],
    ["a Go truth", pilot([flag("1")]), true],
    ["TRUE", pilot([flag("TRUE")]), true],
    ["false", pilot([flag("false")]), false],
    ["not a boolean: Istio's default", pilot([flag("yes")]), false],
    ["empty", pilot([{ name: "AMBIENT_ENABLE_MULTI_NETWORK" }]), false],
    ["the last of a name wins, as in the kubelet", pilot([flag("true"), flag("false")]), false],
    ["from a ConfigMap", pilot([{ name: "AMBIENT_ENABLE_MULTI_NETWORK", valueFrom: { configMapKeyRef: { name: "x", key: "y" } } }]), "unknown"],
    ["a reference the kubelet expands", pilot([flag("$(MULTI)")]), "unknown"],
    ["unset but envFrom may set it", pilot([], [{ secretRef: { name: "istiod-env" } }]), "unknown"],
    ["set, overriding envFrom", pilot([flag("true")], [{ configMapRef: { name: "istiod-env" } }]), true],
    [
      "other variables only",
      pilot([
        { name: "PILOT_ENABLE_AMBIENT", value: "true" },
        { name: "AMBIENT_ENABLE_MULTI_NETWORK_WAYPOINT", value: "true" },
      ]),
      false,
    ],
  ])("%s", (_, container, expected) => {
    expect(multiNetworkFlag(container)).toBe(expected);
  });
});

/** The default istiod with `containers`, in a cluster whose istio-system namespace carries `labels` (undefined: namespaces not listed). */
function attach(meshes: Mesh[], containers: Container[], labels?: Record<string, string>) {
  const { deployment, configMap } = istiod();
  deployment.spec.template.spec.containers = containers;
  const objects = cluster({ deployments: [deployment], configMaps: [configMap], ...(labels ? { namespaces: [namespace("istio-system", labels)] } : {}) });
  return attachMultiNetwork(
    indexCluster(objects),
    meshes.map((m) => ({ ...m, spec: { ...m.spec, controller: "istiod" } })),
  );
}

describe("attachMultiNetwork", () => {
  it("reports the flag and the network label of the control plane's namespace on a mesh whose ztunnel runs", () => {
    const [mesh] = attach([istioMesh({ ztunnel: true })], [pilot([flag("true")])], { "topology.istio.io/network": "network-1" });
    expect(mesh?.spec.istio?.ambient).toEqual({
      ztunnel: { namespace: "istio-system", version: "1.24.2" },
      multiNetwork: { enabled: true, network: "network-1" },
    });
    expect(discoveryResult.safeParse({ meshes: [mesh], workloads: [], destinations: [] }).error).toBeUndefined();
  });

  it("leaves the network out where the namespace has none (or an empty one: Istio's default network)", () => {
    for (const labels of [{}, { "topology.istio.io/network": "" }] as Record<string, string>[]) {
      expect(attach([istioMesh({ ztunnel: true })], [pilot()], labels)[0]?.spec.istio?.ambient?.multiNetwork).toEqual({ enabled: false });
    }
  });

  it("says nothing where it cannot know: no ztunnel, namespaces not listed, or no pilot container", () => {
    expect(attach([istioMesh()], [pilot([flag("true")])], {})[0]?.spec.istio?.ambient).toBeUndefined();
    expect(attach([istioMesh({ ztunnel: true })], [pilot([flag("true")])])[0]?.spec.istio?.ambient?.multiNetwork).toBeUndefined();
    expect(attach([istioMesh({ ztunnel: true })], [{ name: "other", image: "example/other:1" }], {})[0]?.spec.istio?.ambient?.multiNetwork).toBeUndefined();
  });

  it("carries nothing of any other variable", () => {
    const secret = { name: "AWS_SECRET_ACCESS_KEY", value: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
    const [mesh] = attach([istioMesh({ ztunnel: true })], [pilot([secret, flag("true")])], {});
    expect(JSON.stringify(mesh)).not.toContain("wJalrXUtnFEMI");
    expect(JSON.stringify(mesh)).not.toContain("AWS_SECRET");
  });
});

/** A report of one mesh whose ambient data plane carries `multiNetwork`. */
const withMultiNetwork = (multiNetwork: unknown) => ({
  meshes: [
    {
      ...istioMesh(),
      spec: {
        ...istioMesh().spec,
        istio: { ...istioMesh().spec.istio, ambient: { ztunnel: { namespace: "istio-system", version: "1.29.1" }, multiNetwork } },
      },
    },
  ],
  workloads: [],
  destinations: [],
});

describe("the discovered schema", () => {
  it.each([
    ["a network longer than a label value", { enabled: true, network: "n".repeat(64) }],
    ["a network that is no label value", { enabled: true, network: "net work" }],
    ["an empty network", { enabled: true, network: "" }],
    ["a flag that is neither boolean nor unknown", { enabled: "true" }],
    ["a field discovery does not report", { enabled: true, env: { AMBIENT_ENABLE_MULTI_NETWORK: "true" } }],
  ])("refuses %s from an agent", (_, multiNetwork) => {
    expect(discoveryResult.safeParse(withMultiNetwork(multiNetwork)).success).toBe(false);
  });

  it.each([{ enabled: "unknown" }, { enabled: false, network: "eu-west_1.a" }])("accepts %j", (multiNetwork) => {
    expect(discoveryResult.safeParse(withMultiNetwork(multiNetwork)).error).toBeUndefined();
  });
});
