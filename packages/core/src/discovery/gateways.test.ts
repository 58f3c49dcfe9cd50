import { describe, expect, it } from "vitest";
import type { Gateway, Mesh } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import { attachGateways } from "./gateways";
import type { ClusterObjects, Service } from "./kube";
import { cluster, node, pod, service } from "./test-objects";

function istioMesh(name: string, namespace: string, revision?: string): Mesh {
  return {
    kind: "Mesh",
    metadata: { name, cluster: "cluster1" },
    spec: {
      type: "istio",
      cluster: "cluster1",
      namespace,
      version: "1.24.2",
      istio: { ...(revision ? { revision } : {}), trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [] },
    },
  };
}
const mesh = istioMesh("istiod-istio--system-cluster1", "istio-system");

const eastWest = (spec: Partial<Service["spec"]>, status?: Service["status"], name = "istio-eastwestgateway", ns = "istio-system") =>
  service(name, ns, { selector: { istio: "eastwestgateway", app: "istio-eastwestgateway" }, ...spec }, status ? { status } : {});
const tls = { name: "tls", port: 15443, targetPort: 15443, nodePort: 31443 };
const gatewayPod = (name: string, nodeName: string, labels: Record<string, string> = {}) =>
  pod(name, "istio-system", {
    labels: { istio: "eastwestgateway", app: "istio-eastwestgateway", ...labels },
    nodeName,
    containers: [
      {
        name: "istio-proxy",
        image: "istio/proxyv2:1.24.2",
        ports: [
          { name: "tls", containerPort: 15443 },
          { name: "https", containerPort: 8443 },
        ],
      },
    ],
  });

function gatewaysOf(objects: Partial<ClusterObjects>, meshes: Mesh[] = [mesh]): Record<string, Gateway[]> {
  const out = attachGateways(indexCluster(cluster(objects)), meshes);
  return Object.fromEntries(out.map((m) => [m.metadata.name, m.spec.istio?.gateways ?? []]));
}
const onlyGateway = (objects: Partial<ClusterObjects>) => gatewaysOf(objects)[mesh.metadata.name]?.[0];

describe("attachGateways", () => {
  it("takes a LoadBalancer's ip and the Service port", () => {
    const gateway = onlyGateway({
      services: [
        eastWest({ type: "LoadBalancer", ports: [{ name: "status-port", port: 15021 }, tls] }, { loadBalancer: { ingress: [{ ip: "203.0.113.10" }] } }),
      ],
    });
    expect(gateway).toEqual({
      kind: "eastwest",
      name: "istio-eastwestgateway",
      namespace: "istio-system",
      selector: { app: "istio-eastwestgateway", istio: "eastwestgateway" },
      tlsPortName: "tls",
      externalPort: 15443,
      containerPort: 15443,
      addresses: [{ ip: "203.0.113.10" }],
    });
  });

  it("takes a LoadBalancer's hostname", () => {
    const gateway = onlyGateway({
      services: [eastWest({ type: "LoadBalancer", ports: [tls] }, { loadBalancer: { ingress: [{ hostname: "a1b2.elb.amazonaws.com" }] } })],
    });
    expect(gateway?.addresses).toEqual([{ hostname: "a1b2.elb.amazonaws.com" }]);
  });

  it("uses the nodePort on the nodes running gateway pods, external addresses first", () => {
    const gateway = onlyGateway({
      services: [eastWest({ type: "NodePort", ports: [tls] })],
      pods: [gatewayPod("gw-a", "node-a"), gatewayPod("gw-b", "node-b")],
      nodes: [
        node("node-a", { "10.0.0.1": "InternalIP", "198.51.100.1": "ExternalIP" }),
        node("node-b", { "10.0.0.2": "InternalIP" }),
        node("node-c", { "10.0.0.3": "InternalIP" }),
      ],
    });
    expect([gateway?.externalPort, gateway?.addresses]).toEqual([31443, [{ ip: "10.0.0.2" }, { ip: "198.51.100.1" }]]);
  });

  it("uses every node for a pending LoadBalancer whose pods are not scheduled", () => {
    const gateway = onlyGateway({
      services: [eastWest({ type: "LoadBalancer", ports: [tls] })],
      nodes: [node("node-b", { "10.0.0.2": "InternalIP" }), node("node-a", { "10.0.0.1": "InternalIP" })],
    });
    expect([gateway?.externalPort, gateway?.addresses]).toEqual([31443, [{ ip: "10.0.0.1" }, { ip: "10.0.0.2" }]]);
  });

  it.each<[string, Partial<Service["spec"]>]>([
    ["a ClusterIP Service", { type: "ClusterIP", ports: [tls] }],
    ["a Service without a tls port", { type: "NodePort", ports: [{ name: "https", port: 443, nodePort: 30443 }] }],
    ["a Service selecting something else", { type: "NodePort", ports: [tls], selector: { app: "web" } }],
  ])("ignores %s", (_what, spec) => {
    expect(onlyGateway({ services: [eastWest(spec)], nodes: [node("n", { "10.0.0.1": "InternalIP" })] })).toBeUndefined();
  });

  it.each<[string, number | string | undefined, number]>([
    ["a numeric targetPort", 15444, 15444],
    ["a named targetPort found in the pods", "https", 8443],
    ["a named targetPort no pod declares", "nope", 443],
    ["no targetPort", undefined, 443],
  ])("resolves %s", (_what, targetPort, expected) => {
    const port = { name: "tls-passthrough", port: 443, nodePort: 30443, ...(targetPort === undefined ? {} : { targetPort }) };
    const gateway = onlyGateway({
      services: [eastWest({ type: "NodePort", ports: [port] })],
      pods: [gatewayPod("gw", "n")],
      nodes: [node("n", { "10.0.0.1": "InternalIP" })],
    });
    expect([gateway?.tlsPortName, gateway?.containerPort]).toEqual(["tls-passthrough", expected]);
  });

  it("attaches each gateway to the mesh of its revision, else its namespace, else the first", () => {
    const meshes = [
      istioMesh("istiod--1--24-istio--system-cluster1", "istio-system", "1-24"),
      istioMesh("istiod-istio--system-cluster1", "istio-system"),
      istioMesh("istiod-mesh-b-cluster1", "mesh-b"),
    ];
    const lb = { loadBalancer: { ingress: [{ ip: "203.0.113.1" }] } };
    const services = [
      eastWest({ type: "LoadBalancer", ports: [tls] }, lb, "gw-rev", "gateways"),
      eastWest({ type: "LoadBalancer", ports: [tls] }, lb, "gw-b", "mesh-b"),
      eastWest({ type: "LoadBalancer", ports: [tls] }, lb, "gw-default", "istio-system"),
      eastWest({ type: "LoadBalancer", ports: [tls] }, lb, "gw-elsewhere", "elsewhere"),
    ];
    services[0]!.metadata.labels = { "istio.io/rev": "1-24" };
    const names = Object.fromEntries(Object.entries(gatewaysOf({ services }, meshes)).map(([m, gws]) => [m, gws.map((g) => g.name)]));
    expect(names).toEqual({
      "istiod--1--24-istio--system-cluster1": ["gw-rev"],
      "istiod-istio--system-cluster1": ["gw-elsewhere", "gw-default"],
      "istiod-mesh-b-cluster1": ["gw-b"],
    });
  });
});
