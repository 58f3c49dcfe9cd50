import type { Mesh, Workload } from "../api/discovery";
import { type ClusterIndex, compareStrings, sortedRecord } from "./cluster-index";
import type { PodController } from "./kube";
import { istioMeshFor, osmMesh } from "./mesh-choice";
import { type WorkloadKind, workloadName } from "./names";
import { type SidecarType, intendedSidecar, podSidecar, requestedRevision } from "./sidecars";

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
 * The Workloads of a cluster (docs/resources.md#discovery): every Deployment, StatefulSet and
 * DaemonSet with a pod that carries a sidecar or, scaled to zero, whose template would be injected.
 * Each joins the mesh its proxy belongs to (`istioMeshFor` / `osmMesh` over `meshes`, sorted by
 * name); a controller whose mesh is not in this cluster is skipped, since nothing here could
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
      const sidecar = sidecarOf(index, kind, controller);
      if (!sidecar) continue;
      const mesh = sidecar.type === "istio" ? istioMeshFor(meshes, sidecar.revision) : osmMesh(meshes);
      if (!mesh) continue;
      const { name, namespace = "" } = controller.metadata;
      const podSpec = controller.spec.template.spec;
      workloads.push({
        kind: "Workload",
        metadata: { name: workloadName({ name, namespace, cluster: index.cluster, kind }), cluster: index.cluster },
        spec: {
          kind,
          name,
          namespace,
          cluster: index.cluster,
          mesh: mesh.metadata.name,
          labels: sortedRecord(controller.spec.template.metadata?.labels),
          serviceAccount: podSpec.serviceAccountName || podSpec.serviceAccount || "default",
        },
      });
    }
  }
  return workloads.toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
}
