import type { ClusterObjects, PodController } from "@meshplane/core";
import { describe, expect, it } from "vitest";
import { meshWorkloads } from "./mesh-workloads";

const controller = (name: string, namespace: string, image: string, annotations: Record<string, string> = {}): PodController => ({
  metadata: { name, namespace },
  spec: { replicas: 0, template: { metadata: { labels: { app: name }, annotations }, spec: { containers: [{ name: "app", image }] } } },
});

/** One Istio mesh (istiod in istio-system); `shop` is labelled for injection, `plain` is not. */
function cluster(deployments: PodController[], statefulSets: PodController[] = []): ClusterObjects {
  return {
    cluster: "c1",
    deployments: [controller("istiod", "istio-system", "docker.io/istio/pilot:1.24.2"), ...deployments],
    statefulSets,
    daemonSets: [],
    replicaSets: [],
    pods: [],
    services: [],
    endpointSlices: [],
    configMaps: [{ metadata: { name: "istio", namespace: "istio-system" }, data: { mesh: "trustDomain: cluster.local\n" } }],
    nodes: [],
    namespaces: [
      { metadata: { name: "shop", labels: { "istio-injection": "enabled" }, annotations: {} } },
      { metadata: { name: "plain", labels: {}, annotations: {} } },
    ],
  };
}

describe("meshWorkloads", () => {
  it("lists the injected controllers of the mesh with their latest restart, and nothing else", () => {
    const objects = cluster(
      [
        controller("web", "shop", "example/web:1", {
          "meshplane.dev/restarted-at": "2031-03-15T12:00:20.000Z",
          "kubectl.kubernetes.io/restartedAt": "2031-03-15T12:05:00Z",
        }),
        controller("cart", "shop", "example/cart:1", { "meshplane.dev/restarted-at": "2031-03-15T12:00:20.000Z" }),
        controller("batch", "plain", "example/batch:1"),
      ],
      [controller("db", "shop", "example/db:1")],
    );
    const mesh = "istiod-istio--system-c1";
    expect(meshWorkloads(objects, mesh).sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { kind: "Deployment", namespace: "shop", name: "cart", restartedAt: "2031-03-15T12:00:20.000Z" },
      { kind: "StatefulSet", namespace: "shop", name: "db" },
      { kind: "Deployment", namespace: "shop", name: "web", restartedAt: "2031-03-15T12:05:00Z" },
    ]);
    expect(meshWorkloads(objects, "another-mesh")).toEqual([]);
  });
});
