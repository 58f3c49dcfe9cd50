import { describe, expect, it } from "vitest";
import type { Mesh, Workload } from "../api/discovery";
import { indexCluster } from "./cluster-index";
import { discoverDestinations, subsetsOf } from "./destinations";
import type { ClusterObjects } from "./kube";
import { cluster, gateway, istioMesh, namespace, service } from "./test-objects";

const mesh = (name: string, type: "istio" | "osm", revision?: string): Mesh => ({
  kind: "Mesh",
  metadata: { name, cluster: "cluster1" },
  spec: {
    type,
    cluster: "cluster1",
    namespace: "mesh",
    version: "1",
    ...(type === "istio"
      ? {
          istio: {
            ...(revision ? { revision } : {}),
            trustDomain: "cluster.local",
            istiodServiceAccount: "istiod",
            smartDnsProxyingEnabled: false,
            gateways: [],
          },
        }
      : {}),
  },
});
const istio = mesh("istiod-mesh-cluster1", "istio");

function workload(name: string, labels: Record<string, string>, meshName = istio.metadata.name, ns = "shop"): Workload {
  return {
    kind: "Workload",
    metadata: { name: `${name}-${ns}-cluster1-deployment`, cluster: "cluster1" },
    spec: { kind: "Deployment", name, namespace: ns, cluster: "cluster1", mesh: meshName, labels, serviceAccount: "default" },
  };
}

const destinationsOf = (objects: Partial<ClusterObjects>, workloads: Workload[], meshes: Mesh[] = [istio]) =>
  discoverDestinations(indexCluster(cluster(objects)), meshes, workloads);

describe("subsetsOf", () => {
  it.each<[string, Record<string, string>[], Record<string, string[]>]>([
    ["one workload", [{ app: "reviews", version: "v1" }], {}],
    [
      "versions",
      [
        { app: "reviews", version: "v2" },
        { app: "reviews", version: "v1" },
        { app: "reviews", version: "v3" },
      ],
      { version: ["v1", "v2", "v3"] },
    ],
    [
      "two differing keys",
      [
        { app: "a", track: "stable", version: "v1" },
        { app: "a", track: "canary", version: "v2" },
      ],
      { track: ["canary", "stable"], version: ["v1", "v2"] },
    ],
    ["a key only one workload has", [{ app: "a", version: "v1" }, { app: "a" }], {}],
    [
      "excluded keys",
      [
        { "pod-template-hash": "1", "service.istio.io/canonical-revision": "v1" },
        { "pod-template-hash": "2", "service.istio.io/canonical-revision": "v2" },
      ],
      {},
    ],
  ])("%s", (_what, labelSets, expected) => {
    expect(subsetsOf(labelSets.map((labels, i) => workload(`w${i}`, labels)))).toEqual(expected);
  });
});

describe("discoverDestinations", () => {
  const reviews = service(
    "reviews",
    "shop",
    {
      selector: { app: "reviews" },
      ports: [
        { name: "http", port: 9080, targetPort: 9080, appProtocol: "http" },
        { port: 80, protocol: "TCP" },
      ],
    },
    { labels: { service: "reviews", app: "reviews" } },
  );
  const v1 = workload("reviews-v1", { app: "reviews", version: "v1" });
  const v2 = workload("reviews-v2", { app: "reviews", version: "v2" });

  it("describes a Service backed by workloads", () => {
    expect(destinationsOf({ services: [reviews] }, [v1, v2])).toEqual([
      {
        kind: "Destination",
        metadata: { name: "reviews-shop-cluster1", cluster: "cluster1" },
        spec: {
          name: "reviews",
          namespace: "shop",
          cluster: "cluster1",
          mesh: istio.metadata.name,
          labels: { app: "reviews", service: "reviews" },
          selector: { app: "reviews" },
          ports: [
            { port: 80, protocol: "TCP" },
            { name: "http", port: 9080, protocol: "TCP", appProtocol: "http", targetPort: 9080 },
          ],
          subsets: { version: ["v1", "v2"] },
          endpoints: [],
          workloads: [v1.metadata.name, v2.metadata.name],
          dataPlane: "sidecar",
        },
      },
    ]);
  });

  it.each<[string, Workload[], ReturnType<typeof service>]>([
    ["no workload matches the selector", [workload("ratings", { app: "ratings" })], reviews],
    ["the matching workload is in another namespace", [workload("reviews-v1", { app: "reviews" }, istio.metadata.name, "other")], reviews],
    ["the Service has no selector", [v1], service("external", "shop", { ports: [{ port: 443 }] })],
  ])("is not made when %s", (_what, workloads, svc) => {
    expect(destinationsOf({ services: [svc] }, workloads)).toEqual([]);
  });

  it("is made for an annotated Service without workloads, in the mesh its namespace asks for", () => {
    const annotated = service(
      "legacy",
      "shop",
      { ports: [{ port: 8080 }] },
      { annotations: { "meshplane.dev/discover": "true" }, status: { loadBalancer: { ingress: [{ ip: "203.0.113.9" }] } } },
    );
    const meshes = [mesh("istiod-1-24-mesh-cluster1", "istio", "1-24"), istio, mesh("osm-controller-osm-cluster1", "osm")];
    const [destination] = destinationsOf({ services: [annotated], namespaces: [namespace("shop", { "istio.io/rev": "1-24" })] }, [], meshes);
    expect([destination?.spec.mesh, destination?.spec.workloads, destination?.spec.externalAddresses]).toEqual([
      "istiod-1-24-mesh-cluster1",
      [],
      [{ ip: "203.0.113.9" }],
    ]);
  });

  it("is never made in a cluster without a mesh", () => {
    const annotated = service("legacy", "shop", { ports: [{ port: 8080 }] }, { annotations: { "meshplane.dev/discover": "true" } });
    expect(destinationsOf({ services: [annotated, reviews] }, [v1], [])).toEqual([]);
  });
});

const webService = (labels: Record<string, string> = {}) => service("web", "shop", { selector: { app: "web" }, ports: [{ port: 80 }] }, { labels });

describe("discoverDestinations on Istio's ambient data plane", () => {
  const ambientMesh = istioMesh({
    ztunnel: true,
    waypoints: [
      { name: "waypoint", namespace: "shop", for: "service" },
      { name: "pods-only", namespace: "shop", for: "workload" },
    ],
  });
  const web = (dataPlane: "sidecar" | "ambient", name = "web"): Workload => {
    const w = workload(name, { app: "web", version: name }, ambientMesh.metadata.name);
    return { ...w, spec: { ...w.spec, dataPlane } };
  };
  const AMBIENT = { "istio.io/dataplane-mode": "ambient" };

  it.each<[string, Workload[], string]>([
    ["ambient workloads", [web("ambient")], "ambient"],
    ["sidecar and ambient workloads", [web("sidecar", "web-v1"), web("ambient", "web-v2")], "mixed"],
  ])("is made for a Service backed by %s, with their data plane", (_what, workloads, dataPlane) => {
    expect(destinationsOf({ services: [webService()] }, workloads, [ambientMesh]).map((d) => d.spec.dataPlane)).toEqual([dataPlane]);
  });

  it.each<[string, Record<string, string>, Record<string, string>, string | undefined]>([
    ["on the Service", { "istio.io/use-waypoint": "waypoint" }, {}, "shop/waypoint"],
    ["on its namespace", {}, { "istio.io/use-waypoint": "waypoint" }, "shop/waypoint"],
    ["none on the Service, over its namespace's", { "istio.io/use-waypoint": "none" }, { "istio.io/use-waypoint": "waypoint" }, undefined],
    ["a waypoint for workloads only", { "istio.io/use-waypoint": "pods-only" }, {}, undefined],
    ["a waypoint that does not exist", { "istio.io/use-waypoint": "missing" }, {}, undefined],
  ])("names the waypoint bound %s when it serves services", (_what, serviceLabels, nsLabels, expected) => {
    const [destination] = destinationsOf(
      {
        services: [webService(serviceLabels)],
        namespaces: [namespace("shop", { ...AMBIENT, ...nsLabels })],
        gateways: [gateway("waypoint", "shop", {}, "istio-waypoint", "10.96.0.9"), gateway("pods-only", "shop", {}, "istio-waypoint", "10.96.0.10")],
      },
      [web("ambient")],
      [ambientMesh],
    );
    expect(destination?.spec.waypoint && `${destination.spec.waypoint.namespace}/${destination.spec.waypoint.name}`).toBe(expected);
  });
});
