import type { ClusterObjects, PodController } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { istiodClusterId, relayWorkloads } from "./cluster-context";

const deployment = (name: string, namespace: string, env: { name: string; value?: string }[] = [], labels: Record<string, string> = {}): PodController => ({
  metadata: { name, namespace },
  spec: { template: { metadata: { labels }, spec: { containers: [{ name: "discovery", image: "docker.io/istio/pilot:1.28.0", env }] } } },
});
const gateway = (name: string, namespace: string, gatewayClassName: string) => ({ metadata: { name, namespace }, spec: { gatewayClassName } });

describe("the cluster's Istio cluster ID", () => {
  it("is the default istiod's CLUSTER_ID, before a revision's", () => {
    const deployments = [
      deployment("istiod-canary", "istio-system", [{ name: "CLUSTER_ID", value: "canary" }]),
      deployment("istiod", "istio-system", [{ name: "CLUSTER_ID", value: "east" }]),
    ];
    expect(istiodClusterId({ deployments })).toBe("east");
  });

  it("is Kubernetes when istiod sets none, sets it from elsewhere, or sets no ID", () => {
    expect(istiodClusterId({ deployments: [] })).toBe("Kubernetes");
    expect(istiodClusterId({ deployments: [deployment("istiod", "istio-system", [{ name: "CLUSTER_ID" }])] })).toBe("Kubernetes");
    expect(istiodClusterId({ deployments: [deployment("istiod", "istio-system", [{ name: "CLUSTER_ID", value: "not an id" }])] })).toBe("Kubernetes");
    expect(istiodClusterId({ deployments: [deployment("web", "shop", [{ name: "CLUSTER_ID", value: "west" }])] })).toBe("Kubernetes");
  });
});

describe("the cluster's relays", () => {
  it("are its waypoints, its ambient east-west gateways and the workloads of sidecar east-west gateway pods", () => {
    const objects: Pick<ClusterObjects, "gateways" | "deployments"> = {
      gateways: [gateway("waypoint", "bank", "istio-waypoint"), gateway("eastwest", "istio-system", "istio-east-west"), gateway("ingress", "web", "istio")],
      deployments: [
        deployment("istio-eastwestgateway", "istio-system", [], { istio: "eastwestgateway" }),
        deployment("istio-ingressgateway", "istio-system", [], { istio: "ingressgateway" }),
      ],
    };
    expect([...relayWorkloads(objects)].sort()).toEqual(["bank/waypoint", "istio-system/eastwest", "istio-system/istio-eastwestgateway"]);
    expect(relayWorkloads({ deployments: [] }).size).toBe(0);
  });
});
