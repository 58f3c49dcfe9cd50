/**
 * What an agent reports for a cluster running Istio's ambient data plane (docs/ambient.md#what-discovery-sees),
 * written out as a report: ztunnel 1.24.2 (istiod with AMBIENT_ENABLE_MULTI_NETWORK on, network
 * `network-amb`), a waypoint for services and one for workloads, and in
 * namespace `shop` three apps — `cart` (ambient; its Service bound to the service waypoint), `pay`
 * (ambient; its pods bound to the workload waypoint, its Service to none) and `legacy` (sidecar;
 * its Service reported without `dataPlane`, as an agent that predates ambient reports it).
 */
export const AMBIENT_NAMESPACE = "shop";

/** An Istio 1.24.2 mesh in `istio-system` of `cluster`, as a report names it (`handle`), with more of `spec.istio`. */
export function istioMesh(handle: string, cluster: string, istio: Record<string, unknown> = {}) {
  return {
    kind: "Mesh",
    metadata: { name: handle, cluster },
    spec: {
      type: "istio",
      cluster,
      namespace: "istio-system",
      version: "1.24.2",
      istio: { trustDomain: "cluster.local", istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [], ...istio },
    },
  };
}

/** The report for `cluster`, ready for `POST /v1/agent/discovery`. */
export function ambientDiscovery(cluster: string) {
  const mesh = "istiod";
  const meshes = [
    istioMesh(mesh, cluster, {
      ambient: { ztunnel: { namespace: "istio-system", version: "1.24.2" }, multiNetwork: { enabled: true, network: "network-amb" } },
      waypoints: [
        { name: "waypoint", namespace: AMBIENT_NAMESPACE, for: "service" },
        { name: "pay-waypoint", namespace: AMBIENT_NAMESPACE, for: "workload" },
      ],
    }),
  ];
  const apps = [
    {
      app: "cart",
      ip: "10.9.0.1",
      workload: { dataPlane: "ambient" },
      destination: { dataPlane: "ambient", waypoint: { name: "waypoint", namespace: AMBIENT_NAMESPACE } },
    },
    {
      app: "pay",
      ip: "10.9.0.2",
      workload: { dataPlane: "ambient", waypoint: { name: "pay-waypoint", namespace: AMBIENT_NAMESPACE } },
      destination: { dataPlane: "ambient" },
    },
    { app: "legacy", ip: "10.9.0.3", workload: { dataPlane: "sidecar" }, destination: {}, sidecar: "istio" as const },
  ];
  const workloads = apps.map(({ app, workload }) => ({
    kind: "Workload",
    metadata: { name: `${app}-deployment`, cluster },
    spec: { kind: "Deployment", name: app, namespace: AMBIENT_NAMESPACE, cluster, mesh, labels: { app }, serviceAccount: app, ...workload },
  }));
  const destinations = apps.map(({ app, ip, destination, sidecar }) => ({
    kind: "Destination",
    metadata: { name: app, cluster },
    spec: {
      name: app,
      namespace: AMBIENT_NAMESPACE,
      cluster,
      mesh,
      labels: { app },
      selector: { app },
      ports: [{ name: "http", port: 8080, protocol: "TCP", targetPort: 8080 }],
      subsets: {},
      endpoints: [{ ip, labels: { app }, ...(sidecar ? { sidecar } : {}) }],
      workloads: [`${app}-deployment`],
      ...destination,
    },
  }));
  return { meshes, workloads, destinations, hash: `ambient-${cluster}` };
}
