import { dataPlaneOf } from "../api/data-plane";
import type { DataPlaneMode, Mesh } from "../api/discovery";
import { ownValue } from "../own-keys";
import { type ClusterIndex, compareStrings } from "./cluster-index";
import { imageVersion } from "./images";
import type { PodController, StringMap } from "./kube";
import { istioMeshFor } from "./mesh-choice";
import { ISTIO_REV_LABEL } from "./istio-mesh";

/** The label Istio reads on a namespace and a pod to decide whether ztunnel captures it. */
export const DATAPLANE_MODE_LABEL = "istio.io/dataplane-mode";

/** [major, minor] of a version discovery read from an image ("1.24.2", "v1.25"); undefined when unreadable. */
function minorOf(version: string): [number, number] | undefined {
  const match = /^v?(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/**
 * Whether an Istio control plane of `version` runs the ambient data plane meshplane supports: 1.24
 * (ambient's first GA release) and later; an older Istio reports no ambient data plane
 * (docs/ambient.md). A version discovery cannot read (a digest, `latest`) counts as older, as it does
 * for the Istio API versions translation writes.
 */
export function ambientCapable(version: string): boolean {
  const parsed = minorOf(version);
  if (parsed === undefined) return false;
  const [major, minor] = parsed;
  return major > 1 || (major === 1 && minor >= 24);
}

/** Whether a DaemonSet is Istio's ztunnel: named `ztunnel`, with a container whose image is ztunnel's. */
function ztunnelImage(daemonSet: PodController): string | undefined {
  if (daemonSet.metadata.name !== "ztunnel") return undefined;
  return daemonSet.spec.template.spec.containers.find((c) => c.image?.includes("ztunnel"))?.image;
}

/**
 * Returns `meshes` with `spec.istio.ambient` set on the Istio mesh whose ztunnel runs in the cluster
 * (docs/ambient.md#what-discovery-sees): a DaemonSet named `ztunnel` running ztunnel's image, given to
 * the mesh of its `istio.io/rev` (else the default revision's), with its namespace and the version of
 * its image tag. Only a mesh of Istio 1.24 or later gets it (`ambientCapable`). With several
 * ztunnels, the first by namespace is taken for a mesh.
 */
export function attachZtunnel(index: ClusterIndex, meshes: readonly Mesh[]): Mesh[] {
  const ztunnels = index.objects.daemonSets
    .filter((d) => ztunnelImage(d) !== undefined)
    .toSorted((a, b) => compareStrings(a.metadata.namespace ?? "", b.metadata.namespace ?? ""));
  const byMesh = new Map<string, { namespace: string; version: string }>();
  for (const daemonSet of ztunnels) {
    const labels = daemonSet.metadata.labels ?? {};
    const revision = ownValue(labels, ISTIO_REV_LABEL) ?? ownValue(daemonSet.spec.template.metadata?.labels, ISTIO_REV_LABEL);
    const mesh = istioMeshFor(meshes, revision);
    if (!mesh || !ambientCapable(mesh.spec.version) || byMesh.has(mesh.metadata.name)) continue;
    byMesh.set(mesh.metadata.name, { namespace: daemonSet.metadata.namespace ?? "", version: imageVersion(ztunnelImage(daemonSet) as string) });
  }
  return meshes.map((mesh) => {
    const ztunnel = byMesh.get(mesh.metadata.name);
    if (!mesh.spec.istio || !ztunnel) return mesh;
    return { ...mesh, spec: { ...mesh.spec, istio: { ...mesh.spec.istio, ambient: { ztunnel } } } };
  });
}

/** Namespaces Istio's CNI agent never captures pods in (its default `excludeNamespaces`). */
const EXCLUDED_NAMESPACES = new Set(["kube-system"]);

/**
 * Whether ztunnel would capture a pod with `podLabels` in `namespace`, labelled `namespaceLabels`,
 * leaving sidecars aside (a sidecar wins; the caller checks it first), as Istio's CNI agent decides
 * it with its default enablement selectors (docs/ambient.md#what-discovery-sees): the pod labelled
 * `istio.io/dataplane-mode: ambient`, or its namespace labelled so and the pod's label anything but
 * `none`; never a pod in the node's network or in `kube-system`.
 */
export function ambientLabelled(namespace: string, podLabels: StringMap | undefined, namespaceLabels: StringMap, hostNetwork = false): boolean {
  if (hostNetwork || EXCLUDED_NAMESPACES.has(namespace)) return false;
  const own = ownValue(podLabels, DATAPLANE_MODE_LABEL);
  return own === "ambient" || (own !== "none" && ownValue(namespaceLabels, DATAPLANE_MODE_LABEL) === "ambient");
}

/**
 * A Destination's data plane (docs/ambient.md#what-discovery-sees): the one mode of its backing
 * workloads, `mixed` when they differ; with none backing it (a Service annotated for discovery),
 * `ambient` when its namespace is ambient and its mesh runs ztunnel, else `sidecar`.
 */
export function destinationDataPlane(
  backing: readonly { spec: { dataPlane?: DataPlaneMode } }[],
  namespace: string,
  namespaceLabels: StringMap,
  mesh: Mesh | undefined,
): DataPlaneMode | "mixed" {
  const modes = new Set(backing.map((w) => dataPlaneOf(w.spec)));
  if (modes.size > 1) return "mixed";
  const [only] = modes;
  if (only !== undefined) return only;
  return mesh?.spec.istio?.ambient !== undefined && ambientLabelled(namespace, undefined, namespaceLabels) ? "ambient" : "sidecar";
}
