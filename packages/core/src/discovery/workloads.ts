import type { DataPlaneMode, Mesh, Workload } from "../api/discovery";
import { ambientLabelled } from "./ambient";
import { type ClusterIndex, compareStrings, sortedRecord } from "./cluster-index";
import type { PodController } from "./kube";
import { istioMeshFor, osmMesh } from "./mesh-choice";
import { type WorkloadKind, workloadName } from "./names";
import { type SidecarType, intendedSidecar, podSidecar, requestedRevision } from "./sidecars";
import { boundWaypoint } from "./waypoints";

/** The sidecar type and requested Istio revision of one controller, or undefined if it has no sidecar. */
function sidecarOf(index: ClusterIndex, kind: WorkloadKind, controller: PodController): { type: SidecarType; revision?: string } | undefined {
  const { name, namespace = "", uid } = controller.metadata;
  const template = controller.spec.template.metadata ?? {};
  const namespaceLabels = index.namespaceLabels(namespace);
  const pods = index.podsOf(kind, namespace, name, uid);
  if (pods.length > 0) {
    // Pods are the truth: a labelled namespace whose pods were never restarted has no sidecars yet.
    for (const pod of pods) {
      const type = podSidecar(pod);
      // The injector records the revision that injected the pod as an annotation; labels are requests.
      if (type) return { type, revision: requestedRevision(pod.metadata.annotations, pod.metadata.labels, template.labels, namespaceLabels) };
    }
    return undefined;
  }
  const type = intendedSidecar({
    templateLabels: template.labels ?? {},
    templateAnnotations: template.annotations ?? {},
    namespaceLabels,
    namespaceAnnotations: index.namespaceAnnotations(namespace),
  });
  return type ? { type, revision: requestedRevision(template.labels, namespaceLabels) } : undefined;
}

/**
 * The data plane and mesh of one controller: its sidecar's mesh, else, for a pod template ztunnel
 * would capture (`ambientLabelled`), the Istio mesh of its revision among the meshes running ztunnel.
 * Undefined when it has neither, or its mesh is not in this cluster.
 */
function meshOf(
  index: ClusterIndex,
  kind: WorkloadKind,
  controller: PodController,
  meshes: readonly Mesh[],
): { mesh: Mesh; dataPlane: DataPlaneMode } | undefined {
  const sidecar = sidecarOf(index, kind, controller);
  if (sidecar) {
    const mesh = sidecar.type === "istio" ? istioMeshFor(meshes, sidecar.revision) : osmMesh(meshes);
    return mesh && { mesh, dataPlane: "sidecar" };
  }
  const template = controller.spec.template;
  const namespace = controller.metadata.namespace ?? "";
  const namespaceLabels = index.namespaceLabels(namespace);
  if (!ambientLabelled(namespace, template.metadata?.labels, namespaceLabels, template.spec.hostNetwork)) return undefined;
  const ambient = meshes.filter((m) => m.spec.istio?.ambient !== undefined);
  const mesh = istioMeshFor(ambient, requestedRevision(template.metadata?.labels, namespaceLabels));
  return mesh && { mesh, dataPlane: "ambient" };
}

/**
 * The Workloads of a cluster (docs/resources.md#discovery, docs/ambient.md#what-discovery-sees):
 * every Deployment, StatefulSet and DaemonSet with a pod that carries a sidecar or, scaled to zero,
 * whose template would be injected (`dataPlane: sidecar`); else whose pods ztunnel captures, when a
 * mesh of the cluster runs ztunnel (`dataPlane: ambient`). Each joins its mesh (`meshOf` over
 * `meshes`, sorted by name, with their waypoints) and names the waypoint bound to it, if one serves
 * workloads; a controller whose mesh is not in this cluster is skipped, since nothing here could
 * program its proxy. Sorted by name.
 */
export function discoverWorkloads(index: ClusterIndex, meshes: readonly Mesh[]): Workload[] {
  const controllers: [WorkloadKind, readonly PodController[]][] = [
    ["Deployment", index.objects.deployments],
    ["StatefulSet", index.objects.statefulSets],
    ["DaemonSet", index.objects.daemonSets],
  ];
  const workloads: Workload[] = [];
  for (const [kind, list] of controllers) {
    for (const controller of list) {
      const found = meshOf(index, kind, controller, meshes);
      if (!found) continue;
      const { name, namespace = "" } = controller.metadata;
      const podSpec = controller.spec.template.spec;
      const labels = controller.spec.template.metadata?.labels;
      const waypoint = boundWaypoint(index, { namespace, labels }, "workload", found.mesh.spec.istio?.waypoints ?? []);
      workloads.push({
        kind: "Workload",
        metadata: { name: workloadName({ name, namespace, cluster: index.cluster, kind }), cluster: index.cluster },
        spec: {
          kind,
          name,
          namespace,
          cluster: index.cluster,
          mesh: found.mesh.metadata.name,
          labels: sortedRecord(labels),
          serviceAccount: podSpec.serviceAccountName || podSpec.serviceAccount || "default",
          dataPlane: found.dataPlane,
          ...(waypoint ? { waypoint } : {}),
        },
      });
    }
  }
  return workloads.toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}
