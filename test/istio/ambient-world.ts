/**
 * The Kubernetes world of one ambient cluster as istiod sees it, rebuilt from a translator input:
 * what world.ts builds, with each pod as its workload's data plane makes it (an injected sidecar and
 * its `sidecar.istio.io/status`, or none), the namespaces of ambient workloads labelled
 * `istio.io/dataplane-mode: ambient` (a workload outside the mesh there opts out with `none`), the
 * mesh's waypoints as Gateways of class `istio-waypoint`, and the `istio.io/use-waypoint` labels
 * that bind services and workloads to them (docs/ambient.md#what-discovery-sees). Which pods ztunnel
 * captures is then the judge's to decide, with Istio's own enablement selectors.
 */
import type { TranslateInput, TranslateOutput } from "../../packages/core/src/translate/index";
import type { AmbientInput } from "./judge";
import { clusterScene, meshConfigOf, type Pod, podObject, yamlDocs } from "./world";

const MODE = "istio.io/dataplane-mode";
const USE_WAYPOINT = "istio.io/use-waypoint";

/** The labels binding an object in `namespace` to `waypoint`. */
function useWaypoint(namespace: string, waypoint: { name: string; namespace: string } | undefined): Record<string, string> {
  if (waypoint === undefined) return {};
  return { [USE_WAYPOINT]: waypoint.name, ...(waypoint.namespace === namespace ? {} : { "istio.io/use-waypoint-namespace": waypoint.namespace }) };
}

type Kube = { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };

/**
 * The ambient judge's input for `cluster` (undefined without an Istio mesh): its Kubernetes world
 * from `input`, our objects from `output` plus `extraConfig` (YAML documents, e.g. a hand-written
 * HTTPRoute), and its mesh's config.
 */
export function ambientWorld(input: TranslateInput, output: TranslateOutput, cluster: string, extraConfig: readonly object[] = []): AmbientInput | undefined {
  const ambientNamespaces = new Set(input.workloads.filter((w) => w.spec.cluster === cluster && w.spec.dataPlane === "ambient").map((w) => w.spec.namespace));
  const pod = (p: Pod): object => {
    const mode = p.owner?.spec.dataPlane ?? "sidecar";
    const labels = { ...p.labels, ...useWaypoint(p.namespace, p.owner?.spec.waypoint) };
    if (mode === "none" && ambientNamespaces.has(p.namespace)) labels[MODE] = "none";
    const status = mode === "sidecar" ? { "sidecar.istio.io/status": JSON.stringify({ containers: ["istio-proxy"] }) } : undefined;
    return podObject({ ...p, labels }, mode === "sidecar", status);
  };
  const scene = clusterScene(input, cluster, pod);
  if (scene === undefined) return undefined;
  const destinations = input.destinations.filter((d) => d.spec.cluster === cluster);
  for (const o of scene.kube as Kube[]) {
    if (o.kind === "Namespace" && ambientNamespaces.has(o.metadata.name)) o.metadata.labels = { [MODE]: "ambient" };
    if (o.kind !== "Service") continue;
    const d = destinations.find((x) => x.spec.name === o.metadata.name && x.spec.namespace === o.metadata.namespace);
    if (d?.spec.waypoint !== undefined) o.metadata.labels = { ...o.metadata.labels, ...useWaypoint(d.spec.namespace, d.spec.waypoint) };
  }
  const gateways = (scene.mesh.spec.istio?.waypoints ?? []).map((w) => ({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { name: w.name, namespace: w.namespace, labels: { "istio.io/waypoint-for": w.for } },
    spec: { gatewayClassName: "istio-waypoint", listeners: [{ name: "mesh", port: 15008, protocol: "HBONE" }] },
  }));
  return {
    cluster,
    meshConfig: meshConfigOf(scene.mesh),
    config: yamlDocs([...(output.clusters[cluster]?.objects ?? []), ...extraConfig]),
    kubernetes: yamlDocs([...scene.kube, ...gateways]),
    istioVersion: scene.mesh.spec.version,
  };
}
