import { type ClusterObjects, type PodController, discover } from "@meshplane/core";
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

  it("leaves out the mesh's ambient workloads, whose pods hold no certificate", () => {
    const objects = cluster([controller("web", "shop", "example/web:1"), controller("api", "ambient", "example/api:1")]);
    objects.daemonSets = [
      {
        metadata: { name: "ztunnel", namespace: "istio-system" },
        spec: { template: { spec: { containers: [{ name: "istio-proxy", image: "docker.io/istio/ztunnel:1.24.2" }] } } },
      },
    ];
    objects.namespaces = [...(objects.namespaces ?? []), { metadata: { name: "ambient", labels: { "istio.io/dataplane-mode": "ambient" } } }];
    expect(discover(objects).workloads.map((w) => [w.spec.name, w.spec.dataPlane])).toEqual([
      ["api", "ambient"],
      ["web", "sidecar"],
    ]);
    expect(meshWorkloads(objects, "istiod-istio--system-c1").map((w) => w.name)).toEqual(["web"]);
  });
});
