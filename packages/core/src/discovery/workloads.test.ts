import { describe, expect, it } from "vitest";
import type { Mesh } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import type { ClusterObjects } from "./kube";
import { discoverWorkloads } from "./workloads";
import { discoveredName } from "./names";
import { APP, cluster, controller, gateway, istioMesh as istioMeshWith, namespace, pod, replicaSet } from "./test-objects";

function istioMesh(revision?: string): Mesh {
  const name = discoveredName({ name: revision ? `istiod-${revision}` : "istiod", namespace: "istio-system", cluster: "cluster1" });
  return {
    kind: "Mesh",
    metadata: { name, cluster: "cluster1" },
    spec: {
      type: "istio",
      cluster: "cluster1",
      namespace: "istio-system",
      version: "1.24.2",
      istio: { ...(revision ? { revision } : {}), trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [] },
    },
  };
}
const osm: Mesh = {
  kind: "Mesh",
  metadata: { name: "osm--controller-osm--system-cluster1", cluster: "cluster1" },
  spec: { type: "osm", cluster: "cluster1", namespace: "osm-system", version: "1.2.4" },
};

const workloadsOf = (objects: Partial<ClusterObjects>, meshes: Mesh[] = [istioMesh()]) => discoverWorkloads(indexCluster(cluster(objects)), meshes);

describe("discoverWorkloads", () => {
  it("finds a Deployment through its ReplicaSet and reports its template labels and service account", () => {
    const workloads = workloadsOf({
      deployments: [controller("reviews-v1", "bookinfo", { templateLabels: { app: "reviews", version: "v1" }, serviceAccountName: "bookinfo-reviews" })],
      replicaSets: [replicaSet("reviews-v1-7d9", "bookinfo", "reviews-v1")],
      pods: [
        pod("reviews-v1-7d9-x", "bookinfo", {
          owner: { kind: "ReplicaSet", name: "reviews-v1-7d9" },
          labels: { app: "reviews", version: "v1", "pod-template-hash": "7d9" },
        }),
      ],
    });
    expect(workloads).toEqual([
      {
        kind: "Workload",
        metadata: { name: "reviews--v1-bookinfo-cluster1-deployment", cluster: "cluster1" },
        spec: {
          kind: "Deployment",
          name: "reviews-v1",
          namespace: "bookinfo",
          cluster: "cluster1",
          mesh: "istiod-istio--system-cluster1",
          labels: { app: "reviews", version: "v1" },
          serviceAccount: "bookinfo-reviews",
          dataPlane: "sidecar",
        },
      },
    ]);
  });

  it.each([
    ["StatefulSet", "statefulSets"],
    ["DaemonSet", "daemonSets"],
  ] as const)("finds a %s owning its pods directly", (kind, list) => {
    const workloads = workloadsOf({ [list]: [controller("db", "data")], pods: [pod("db-0", "data", { owner: { kind, name: "db" } })] });
    expect(workloads.map((w) => [w.metadata.name, w.spec.kind, w.spec.serviceAccount])).toEqual([[`db-data-cluster1-${kind.toLowerCase()}`, kind, "default"]]);
  });

  it("skips a controller whose pods have no sidecar, even in a labelled namespace", () => {
    const workloads = workloadsOf({
      namespaces: [namespace("bookinfo", { "istio-injection": "enabled" })],
      statefulSets: [controller("db", "bookinfo")],
      pods: [pod("db-0", "bookinfo", { owner: { kind: "StatefulSet", name: "db" }, containers: [APP] })],
    });
    expect(workloads).toEqual([]);
  });

  it.each<[string, Partial<ClusterObjects>, string[]]>([
    ["in an injection-labelled namespace", { namespaces: [namespace("bookinfo", { "istio-injection": "enabled" })] }, ["ratings-bookinfo-cluster1-deployment"]],
    ["in an unlabelled namespace", { namespaces: [namespace("bookinfo")] }, []],
    ["with no namespace objects listed", {}, []],
  ])("keeps a scaled-to-zero Deployment only %s", (_what, objects, names) => {
    const workloads = workloadsOf({ ...objects, deployments: [controller("ratings", "bookinfo")] });
    expect(workloads.map((w) => w.metadata.name)).toEqual(names);
  });

  it("does not count pods of a ReplicaSet owned by a previous Deployment with the same name", () => {
    const workloads = workloadsOf({
      deployments: [controller("web", "shop", { uid: "new" })],
      replicaSets: [{ metadata: { name: "web-1", namespace: "shop", ownerReferences: [{ kind: "Deployment", name: "web", uid: "old" }] } }],
      pods: [pod("web-1-a", "shop", { owner: { kind: "ReplicaSet", name: "web-1" } })],
    });
    expect(workloads).toEqual([]);
  });

  it.each<[string, Record<string, string>, Record<string, string>, string]>([
    ["a pod labelled with a revision", { "istio.io/rev": "1-24" }, {}, "istiod--1--24-istio--system-cluster1"],
    ["a namespace labelled with a revision", {}, { "istio.io/rev": "1-24" }, "istiod--1--24-istio--system-cluster1"],
    ["the default revision", { "istio.io/rev": "default" }, {}, "istiod-istio--system-cluster1"],
    ["an unknown revision", { "istio.io/rev": "9-99" }, {}, "istiod-istio--system-cluster1"],
    ["a pod the 1-24 injector annotated", { annotation: "1-24" }, { "istio.io/rev": "default" }, "istiod--1--24-istio--system-cluster1"],
  ])("assigns the mesh of %s", (_what, podLabels, nsLabels, mesh) => {
    const { annotation, ...labels } = podLabels;
    const workloads = workloadsOf(
      {
        namespaces: [namespace("shop", nsLabels)],
        daemonSets: [controller("agent", "shop")],
        pods: [
          pod("agent-x", "shop", {
            owner: { kind: "DaemonSet", name: "agent" },
            labels,
            ...(annotation ? { annotations: { "istio.io/rev": annotation } } : {}),
          }),
        ],
      },
      [istioMesh("1-24"), istioMesh()],
    );
    expect(workloads.map((w) => w.spec.mesh)).toEqual([mesh]);
  });

  it("assigns OSM pods to the OSM mesh and skips sidecars whose mesh is not in the cluster", () => {
    const osmPod = pod("a-0", "shop", {
      owner: { kind: "StatefulSet", name: "a" },
      containers: [APP, { name: "envoy", image: "envoyproxy/envoy:v1.25" }],
      initContainers: [{ name: "osm-init", image: "openservicemesh/init:v1.2.4" }],
    });
    const istioPod = pod("b-0", "shop", { owner: { kind: "StatefulSet", name: "b" } });
    const objects = { statefulSets: [controller("a", "shop"), controller("b", "shop")], pods: [osmPod, istioPod] };
    expect(workloadsOf(objects, [osm]).map((w) => [w.spec.name, w.spec.mesh])).toEqual([["a", osm.metadata.name]]);
  });
});

const shopPod = (options: Parameters<typeof pod>[2] = {}) =>
  pod("web-0", "shop", { owner: { kind: "StatefulSet", name: "web" }, containers: [APP], ...options });

describe("discoverWorkloads on Istio's ambient data plane", () => {
  const AMBIENT = { "istio.io/dataplane-mode": "ambient" };
  const withZtunnel = istioMeshWith({ ztunnel: true, waypoints: [{ name: "waypoint", namespace: "shop", for: "workload" }] });
  const modes = (objects: Partial<ClusterObjects>, meshes: Mesh[] = [withZtunnel]) => workloadsOf(objects, meshes).map((w) => [w.spec.name, w.spec.dataPlane]);

  it.each<[string, Partial<ClusterObjects>, Mesh[], [string, string][]]>([
    [
      "pods in an ambient namespace",
      { namespaces: [namespace("shop", AMBIENT)], statefulSets: [controller("web", "shop")], pods: [shopPod()] },
      [withZtunnel],
      [["web", "ambient"]],
    ],
    [
      "an ambient pod template in a plain namespace",
      { statefulSets: [controller("web", "shop", { templateLabels: { app: "web", ...AMBIENT } })], pods: [shopPod()] },
      [withZtunnel],
      [["web", "ambient"]],
    ],
    [
      "a scaled-to-zero controller in an ambient namespace",
      { namespaces: [namespace("shop", AMBIENT)], statefulSets: [controller("web", "shop")] },
      [withZtunnel],
      [["web", "ambient"]],
    ],
    [
      "a pod template opting out",
      {
        namespaces: [namespace("shop", AMBIENT)],
        statefulSets: [controller("web", "shop", { templateLabels: { app: "web", "istio.io/dataplane-mode": "none" } })],
        pods: [shopPod()],
      },
      [withZtunnel],
      [],
    ],
    [
      "pods with a sidecar in an ambient namespace (a sidecar wins)",
      { namespaces: [namespace("shop", AMBIENT)], statefulSets: [controller("web", "shop")], pods: [shopPod({ containers: undefined })] },
      [withZtunnel],
      [["web", "sidecar"]],
    ],
    [
      "a scaled-to-zero controller in a namespace labelled both for injection and ambient (a sidecar wins)",
      { namespaces: [namespace("shop", { ...AMBIENT, "istio-injection": "enabled" })], statefulSets: [controller("web", "shop")] },
      [withZtunnel],
      [["web", "sidecar"]],
    ],
    [
      "an ambient namespace of a mesh without ztunnel",
      { namespaces: [namespace("shop", AMBIENT)], statefulSets: [controller("web", "shop")], pods: [shopPod()] },
      [istioMesh()],
      [],
    ],
    ["a plain namespace", { namespaces: [namespace("shop")], statefulSets: [controller("web", "shop")], pods: [shopPod()] }, [withZtunnel], []],
  ])("%s", (_what, objects, meshes, expected) => {
    expect(modes(objects, meshes)).toEqual(expected);
  });

  // Pods without a sidecar: a namespace's istio.io/rev alone would ask for injection.
  it("joins the ambient workload to the mesh of its revision among those running ztunnel", () => {
    const revisioned = istioMeshWith({ revision: "1-25", ztunnel: true });
    const objects = { namespaces: [namespace("shop", { ...AMBIENT, "istio.io/rev": "1-25" })], statefulSets: [controller("web", "shop")], pods: [shopPod()] };
    expect(workloadsOf(objects, [revisioned, istioMesh()]).map((w) => w.spec.mesh)).toEqual([revisioned.metadata.name]);
    expect(workloadsOf(objects, [istioMeshWith({ revision: "1-25" }), withZtunnel]).map((w) => w.spec.mesh)).toEqual([withZtunnel.metadata.name]);
  });

  it.each<[string, Record<string, string>, Record<string, string>, string | undefined]>([
    ["its pod template's label", { "istio.io/use-waypoint": "waypoint" }, {}, "shop/waypoint"],
    ["its namespace's label", {}, { "istio.io/use-waypoint": "waypoint" }, "shop/waypoint"],
    ["none on its pod template", { "istio.io/use-waypoint": "none" }, { "istio.io/use-waypoint": "waypoint" }, undefined],
    ["a waypoint that does not exist", { "istio.io/use-waypoint": "missing" }, {}, undefined],
  ])("binds the waypoint of %s", (_what, templateLabels, nsLabels, expected) => {
    const objects = {
      namespaces: [namespace("shop", { ...AMBIENT, ...nsLabels })],
      statefulSets: [controller("web", "shop", { templateLabels: { app: "web", ...templateLabels } })],
      gateways: [gateway("waypoint", "shop", { "istio.io/waypoint-for": "workload" }, "istio-waypoint", "10.96.0.9")],
    };
    const [workload] = workloadsOf(objects, [withZtunnel]);
    expect(workload?.spec.waypoint && `${workload.spec.waypoint.namespace}/${workload.spec.waypoint.name}`).toBe(expected);
  });
});
