import { describe, expect, it } from "vitest";
import { indexCluster } from "./cluster-index";
import { indexEndpoints } from "./endpoints";
import type { ClusterObjects, EndpointSlice, EndpointSliceEndpoint } from "./kube";
import { cluster, node, pod } from "./test-objects";

const nodes = [
  node("node-a", {}, { "topology.kubernetes.io/zone": "eu-west-1a", "topology.istio.io/subzone": "rack-1" }),
  node("node-b", {}, { "topology.kubernetes.io/zone": "eu-west-1b" }),
];
const pods = [
  pod("web-1", "shop", { labels: { app: "web", version: "v1" }, nodeName: "node-a" }),
  pod("web-2", "shop", { labels: { app: "web", version: "v2" }, nodeName: "node-b" }),
];

function slice(name: string, endpoints: EndpointSliceEndpoint[], addressType = "IPv4"): EndpointSlice {
  return { metadata: { name, namespace: "shop", labels: { "kubernetes.io/service-name": "web" } }, addressType, endpoints };
}
const toPod = (name: string) => ({ kind: "Pod", name, namespace: "shop" });
const endpointsOf = (objects: Partial<ClusterObjects>) => indexEndpoints(indexCluster(cluster({ nodes, pods, ...objects })))("shop", "web");

describe("indexEndpoints", () => {
  it("reads EndpointSlices: the slice's zone first, the node's labels otherwise, the pod's labels", () => {
    const endpoints = endpointsOf({
      endpointSlices: [
        slice("web-abc", [
          { addresses: ["10.1.0.7"], conditions: { ready: true }, nodeName: "node-b", zone: "eu-west-1c", targetRef: toPod("web-2") },
          { addresses: ["10.1.0.5"], nodeName: "node-a", targetRef: toPod("web-1") },
        ]),
      ],
    });
    expect(endpoints).toEqual([
      { ip: "10.1.0.5", labels: { app: "web", version: "v1" }, zone: "eu-west-1a", subZone: "rack-1", sidecar: "istio" },
      { ip: "10.1.0.7", labels: { app: "web", version: "v2" }, zone: "eu-west-1c", sidecar: "istio" },
    ]);
  });

  it("leaves out endpoints that are not ready and FQDN slices", () => {
    const endpoints = endpointsOf({
      endpointSlices: [
        slice("web-abc", [{ addresses: ["10.1.0.5"], conditions: { ready: false }, targetRef: toPod("web-1") }]),
        slice("web-fqdn", [{ addresses: ["web.example.com"] }], "FQDN"),
      ],
    });
    expect(endpoints).toEqual([]);
  });

  it("keeps one endpoint per IP whatever order overlapping slices come in", () => {
    const a = slice("web-a", [{ addresses: ["10.1.0.5"], targetRef: toPod("web-1") }]);
    const b = slice("web-b", [{ addresses: ["10.1.0.5"], zone: "eu-west-1z", targetRef: toPod("web-1") }]);
    const forward = endpointsOf({ endpointSlices: [a, b] });
    expect(forward).toHaveLength(1);
    expect(endpointsOf({ endpointSlices: [b, a] })).toEqual(forward);
  });

  it("falls back to Endpoints, finding the node through the pod", () => {
    const endpoints = endpointsOf({
      endpoints: [
        {
          metadata: { name: "web", namespace: "shop" },
          subsets: [
            {
              addresses: [{ ip: "10.1.0.7", targetRef: toPod("web-2") }, { ip: "10.1.0.9" }],
              notReadyAddresses: [{ ip: "10.1.0.5", targetRef: toPod("web-1") }],
            },
          ],
        },
      ],
    });
    expect(endpoints).toEqual([
      { ip: "10.1.0.7", labels: { app: "web", version: "v2" }, zone: "eu-west-1b", sidecar: "istio" },
      { ip: "10.1.0.9", labels: {} },
    ]);
  });

  it("prefers EndpointSlices when both are given, so nothing is counted twice", () => {
    const endpoints = endpointsOf({
      endpointSlices: [],
      endpoints: [{ metadata: { name: "web", namespace: "shop" }, subsets: [{ addresses: [{ ip: "10.1.0.7" }] }] }],
    });
    expect(endpoints).toEqual([]);
  });
});
