import { type ClusterObjects, type PodController, dataPlaneOf, discover } from "@meshplane/core";

/** A Deployment, StatefulSet or DaemonSet of a mesh, and when it was last restarted (ISO), if known. */
export interface WorkloadRef {
  kind: "Deployment" | "StatefulSet" | "DaemonSet";
  namespace: string;
  name: string;
  restartedAt?: string;
}

/** The pod-template annotation the restart stage sets to make a controller replace its pods (as `kubectl rollout restart` does). */
export const RESTARTED_AT = "meshplane.dev/restarted-at";

// What `kubectl rollout restart` writes: a restart by hand after the roots changed counts too.
const KUBECTL_RESTARTED_AT = "kubectl.kubernetes.io/restartedAt";

/**
 * The Deployments, StatefulSets and DaemonSets of `mesh` in a cluster whose pods carry its sidecar, by
 * the same rules discovery reports Workloads with (docs/resources.md#discovery), each with the later of
 * its meshplane and kubectl restart annotations. Ambient workloads are left out: their pods hold no
 * certificate, ztunnel does (docs/ambient.md). Pure; an empty list when the mesh has none.
 */
export function meshWorkloads(objects: ClusterObjects, mesh: string): WorkloadRef[] {
  const controllers: Record<WorkloadRef["kind"], readonly PodController[]> = {
    Deployment: objects.deployments,
    StatefulSet: objects.statefulSets,
    DaemonSet: objects.daemonSets,
  };
  return discover(objects)
    .workloads.filter((w) => w.spec.mesh === mesh && dataPlaneOf(w.spec) === "sidecar")
    .map((w) => {
      const controller = controllers[w.spec.kind].find((c) => c.metadata.name === w.spec.name && (c.metadata.namespace ?? "") === w.spec.namespace);
      const restartedAt = latest(controller?.spec.template.metadata?.annotations ?? {});
      return { kind: w.spec.kind, namespace: w.spec.namespace, name: w.spec.name, ...(restartedAt ? { restartedAt } : {}) };
    });
}

function latest(annotations: Readonly<Record<string, string>>): string | undefined {
  const times = [annotations[RESTARTED_AT], annotations[KUBECTL_RESTARTED_AT]].filter((t): t is string => t !== undefined && !Number.isNaN(Date.parse(t)));
  return times.sort((a, b) => Date.parse(a) - Date.parse(b)).at(-1);
}
