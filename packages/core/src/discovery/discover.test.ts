import { assert, property, record, shuffledSubarray } from "fast-check";
import { describe, expect, it } from "vitest";
import { discoveryResult } from "../api/discovery";
import { discover } from "./discover";
import type { ClusterObjects } from "./kube";
import type { DiscoveryProblem } from "./report";
import { cluster, controller, istiod, namespace, node, pod, replicaSet, service } from "./test-objects";

const main = istiod(undefined, 'trustDomain: acme.example\ndefaultConfig:\n  proxyMetadata:\n    ISTIO_META_DNS_CAPTURE: "true"\n');
const canary = istiod("1-24");
const input: ClusterObjects = cluster({
  deployments: [
    main.deployment,
    canary.deployment,
    controller("web-v1", "shop", { templateLabels: { app: "web", version: "v1" } }),
    controller("web-v2", "shop", { templateLabels: { app: "web", version: "v2" } }),
    controller("api", "canary", { templateLabels: { app: "api" } }),
  ],
  replicaSets: [replicaSet("web-v1-1", "shop", "web-v1"), replicaSet("web-v2-1", "shop", "web-v2")],
  pods: [
    pod("web-v1-1-a", "shop", { owner: { kind: "ReplicaSet", name: "web-v1-1" }, labels: { app: "web", version: "v1" }, nodeName: "n1" }),
    pod("web-v2-1-a", "shop", { owner: { kind: "ReplicaSet", name: "web-v2-1" }, labels: { app: "web", version: "v2" }, nodeName: "n2" }),
  ],
  services: [
    service("web", "shop", { selector: { app: "web" }, ports: [{ name: "http", port: 80 }] }),
    service("api", "canary", { selector: { app: "api" }, ports: [{ name: "grpc", port: 9000 }] }),
    service("istio-ingressgateway", "istio-system", {
      type: "NodePort",
      selector: { istio: "ingressgateway" },
      ports: [{ name: "tls", port: 15443, nodePort: 30443 }],
    }),
  ],
  endpoints: [
    {
      metadata: { name: "web", namespace: "shop" },
      subsets: [
        {
          addresses: [
            { ip: "10.0.0.2", targetRef: { kind: "Pod", name: "web-v2-1-a" } },
            { ip: "10.0.0.1", targetRef: { kind: "Pod", name: "web-v1-1-a" } },
          ],
        },
      ],
    },
  ],
  configMaps: [main.configMap, canary.configMap],
  nodes: [
    node("n1", { "192.0.2.1": "InternalIP" }, { "topology.kubernetes.io/zone": "z1" }),
    node("n2", { "192.0.2.2": "InternalIP" }, { "topology.kubernetes.io/zone": "z2" }),
  ],
  namespaces: [namespace("canary", { "istio.io/rev": "1-24" })],
});

describe("discover", () => {
  const result = discover(input);

  it("returns output the control plane accepts", () => {
    expect(discoveryResult.safeParse(result).error).toBeUndefined();
  });

  it("composes meshes, gateways, workloads and destinations", () => {
    expect(
      result.meshes.map((m) => [m.metadata.name, m.spec.istio?.trustDomain, m.spec.istio?.smartDnsProxyingEnabled, m.spec.istio?.gateways.map((g) => g.name)]),
    ).toEqual([
      ["istiod--1--24-istio--system-cluster1", "cluster.local", false, []],
      ["istiod-istio--system-cluster1", "acme.example", true, ["istio-ingressgateway"]],
    ]);
    expect(result.workloads.map((w) => [w.metadata.name, w.spec.mesh])).toEqual([
      ["api-canary-cluster1-deployment", "istiod--1--24-istio--system-cluster1"],
      ["web--v1-shop-cluster1-deployment", "istiod-istio--system-cluster1"],
      ["web--v2-shop-cluster1-deployment", "istiod-istio--system-cluster1"],
    ]);
    expect(result.destinations.map((d) => [d.metadata.name, d.spec.mesh, d.spec.subsets, d.spec.endpoints.map((e) => `${e.ip}@${e.zone}`)])).toEqual([
      ["api-canary-cluster1", "istiod--1--24-istio--system-cluster1", {}, []],
      ["web-shop-cluster1", "istiod-istio--system-cluster1", { version: ["v1", "v2"] }, ["10.0.0.1@z1", "10.0.0.2@z2"]],
    ]);
  });

  it("gives a deep-equal result for any order of the input lists", () => {
    const keys = ["deployments", "replicaSets", "pods", "services", "configMaps", "nodes", "namespaces"] as const;
    const shuffled = record(Object.fromEntries(keys.map((key) => [key, shuffledSubarray(input[key] ?? [], { minLength: (input[key] ?? []).length })])));
    assert(
      property(shuffled, (lists) => {
        expect(discover({ ...input, ...lists })).toEqual(result);
      }),
    );
  });

  it("passes skipped objects to report and carries on", () => {
    const problems: DiscoveryProblem[] = [];
    const partial = discover({ ...input, configMaps: [main.configMap] }, { report: (p) => problems.push(p) });
    expect(problems.map((p) => p.object)).toEqual(["Deployment istio-system/istiod-1-24"]);
    expect(partial.meshes.map((m) => m.metadata.name)).toEqual(["istiod-istio--system-cluster1"]);
  });
});
