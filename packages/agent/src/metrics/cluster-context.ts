import { type ClusterObjects, istioClusterId } from "@meshplane/core";
import type { WaypointSet } from "./minute";

/** What Istio calls a cluster whose istiod sets no `CLUSTER_ID`. */
export const DEFAULT_ISTIO_CLUSTER_ID = "Kubernetes";

/**
 * The Istio cluster ID istiod gives this cluster: the `CLUSTER_ID` of an istiod Deployment's
 * discovery container (the Deployments discovery already watches), the default revision's first
 * (`istiod`, then other istiod* by namespace and name); `Kubernetes` when none sets it as a plain
 * value. Only that variable is read, by name: an istiod's other variables may hold secrets.
 */
export function istiodClusterId(objects: Pick<ClusterObjects, "deployments">): string {
  const istiods = objects.deployments
    .filter((d) => d.metadata.name.startsWith("istiod"))
    .sort(
      (a, b) =>
        rank(a.metadata.name) - rank(b.metadata.name) ||
        `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
    );
  for (const d of istiods) {
    for (const c of d.spec.template.spec.containers) {
      if (c.name !== "discovery" && !c.image?.includes("pilot")) continue;
      const value = c.env?.find((e) => e.name === "CLUSTER_ID")?.value;
      if (value && istioClusterId.safeParse(value).success) return value;
    }
  }
  return DEFAULT_ISTIO_CLUSTER_ID;
}

const rank = (name: string) => (name === "istiod" ? 0 : 1);

/**
 * The cluster's waypoints as workloads (`<namespace>/<name>`): the Gateways of class
 * `istio-waypoint`, whose proxy Deployment Istio names after the Gateway. ztunnel's hops to and from
 * them are not edges of their own (docs/observability.md#istios-metrics).
 */
export function waypointWorkloads(objects: Pick<ClusterObjects, "gateways">): WaypointSet {
  return new Set(
    (objects.gateways ?? []).filter((g) => g.spec.gatewayClassName === "istio-waypoint").map((g) => `${g.metadata.namespace ?? "default"}/${g.metadata.name}`),
  );
}
