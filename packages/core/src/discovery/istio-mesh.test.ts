import { describe, expect, it } from "vitest";
import type { DiscoveryProblem } from "./report";
import { indexCluster } from "./cluster-index";
import { discoverIstioMeshes, istiodRevision, readMeshConfig } from "./istio-mesh";
import { cluster, configMap, controller, istiod } from "./test-objects";

function meshesOf(objects: Parameters<typeof cluster>[0]) {
  const problems: DiscoveryProblem[] = [];
  const meshes = discoverIstioMeshes(indexCluster(cluster(objects)), (p) => problems.push(p));
  return { meshes, problems };
}

describe("istiodRevision", () => {
  it.each([
    ["istiod", undefined, undefined],
    ["istiod", "default", undefined],
    ["istiod-1-24", undefined, "1-24"],
    ["istiod-1-24", "1-24", "1-24"],
    ["istiod", "canary", "canary"],
    ["istiod-", undefined, undefined],
  ])("name %s, label %s → %s", (name, label, revision) => {
    const deployment = controller(name, "istio-system", label === undefined ? {} : { labels: { "istio.io/rev": label } });
    expect(istiodRevision(deployment)).toBe(revision);
  });
});

describe("readMeshConfig", () => {
  it.each([
    ["", { trustDomain: "cluster.local", trustDomainAliases: [], smartDnsProxyingEnabled: false }],
    ["trustDomain: example.org\n", { trustDomain: "example.org", trustDomainAliases: [], smartDnsProxyingEnabled: false }],
    [
      "trustDomain: a.example\ntrustDomainAliases: [b.example, a.example]\ncaCertificates: [{pem: x, trustDomains: [c.example]}]\n",
      { trustDomain: "a.example", trustDomainAliases: ["b.example", "c.example"], smartDnsProxyingEnabled: false },
    ],
    [
      'defaultConfig:\n  proxyMetadata:\n    ISTIO_META_DNS_CAPTURE: "true"\n',
      { trustDomain: "cluster.local", trustDomainAliases: [], smartDnsProxyingEnabled: true },
    ],
    [
      "defaultConfig:\n  proxyMetadata:\n    ISTIO_META_DNS_CAPTURE: true\n",
      { trustDomain: "cluster.local", trustDomainAliases: [], smartDnsProxyingEnabled: true },
    ],
    [
      'defaultConfig:\n  proxyMetadata:\n    ISTIO_META_DNS_CAPTURE: "false"\n',
      { trustDomain: "cluster.local", trustDomainAliases: [], smartDnsProxyingEnabled: false },
    ],
    [
      'defaultConfig:\n  proxyMetadata:\n    ISTIO_META_DNS_AUTO_ALLOCATE: "true"\n',
      { trustDomain: "cluster.local", trustDomainAliases: [], smartDnsProxyingEnabled: false },
    ],
  ])("%j", (text, facts) => {
    expect(readMeshConfig(text)).toEqual(facts);
  });

  it.each([["trustDomain: [unclosed\n"], ["- a list\n"], ["just text"]])("rejects %j", (text) => {
    expect(readMeshConfig(text)).toHaveProperty("error");
  });
});

describe("discoverIstioMeshes", () => {
  it("finds a default and a revisioned istiod, each with its own ConfigMap", () => {
    const main = istiod(undefined, "trustDomain: one.example\n");
    const canary = istiod("1-24", "trustDomain: two.example\n");
    const { meshes, problems } = meshesOf({ deployments: [main.deployment, canary.deployment], configMaps: [main.configMap, canary.configMap] });
    expect(problems).toEqual([]);
    expect(meshes.map((m) => [m.metadata.name, m.spec.istio?.revision, m.spec.istio?.trustDomain, m.spec.istio?.istiodServiceAccount])).toEqual([
      ["istiod--1--24-istio--system-cluster1", "1-24", "two.example", "istiod-1-24"],
      ["istiod-istio--system-cluster1", undefined, "one.example", "istiod"],
    ]);
    expect(meshes[1]?.spec).toEqual({
      type: "istio",
      cluster: "cluster1",
      namespace: "istio-system",
      controller: "istiod",
      version: "1.24.2",
      istio: { trustDomain: "one.example", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [] },
    });
  });

  it("does not let a revisioned istiod use the default ConfigMap", () => {
    const canary = istiod("1-24");
    const { meshes, problems } = meshesOf({ deployments: [canary.deployment], configMaps: [configMap("istio", "istio-system", { mesh: "" })] });
    expect(meshes).toEqual([]);
    expect(problems).toEqual([
      { object: "Deployment istio-system/istiod-1-24", message: 'no ConfigMap istio-system/istio-1-24 with key "mesh"; not treated as a mesh' },
    ]);
  });

  it("reports meshConfig that is not YAML and skips the mesh", () => {
    const { deployment } = istiod();
    const { meshes, problems } = meshesOf({ deployments: [deployment], configMaps: [configMap("istio", "istio-system", { mesh: "a: [" })] });
    expect(meshes).toEqual([]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.message).toMatch(/^ConfigMap istio-system\/istio: meshConfig is not valid YAML/);
  });

  it.each([
    ["a name not starting with istiod", controller("pilot", "istio-system", { containers: [{ name: "discovery", image: "istio/pilot:1.24.2" }] })],
    ["an istiod without a pilot image", controller("istiod", "istio-system", { containers: [{ name: "discovery", image: "example/istiod-lookalike:1" }] })],
  ])("ignores %s", (_what, deployment) => {
    const { meshes } = meshesOf({ deployments: [deployment], configMaps: [configMap("istio", "istio-system", { mesh: "" })] });
    expect(meshes).toEqual([]);
  });

  it("defaults the service account when the template names none", () => {
    const { deployment, configMap: cm } = istiod("1-24");
    delete deployment.spec.template.spec.serviceAccountName;
    const { meshes } = meshesOf({ deployments: [deployment], configMaps: [cm] });
    expect(meshes[0]?.spec.istio?.istiodServiceAccount).toBe("istiod-1-24");
  });
});
