import { type ClusterObjects, istioClusterId, pilotContainer } from "@meshplane/core";
import type { RelaySet } from "./minute";

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
    const value = pilotContainer(d)?.env?.find((e) => e.name === "CLUSTER_ID")?.value;
    if (value && istioClusterId.safeParse(value).success) return value;
  }
  return DEFAULT_ISTIO_CLUSTER_ID;
}

const rank = (name: string) => (name === "istiod" ? 0 : 1);

/** The pod label Istio's east-west gateway charts set (sidecar multi-network, SNI passthrough on 15443). */
const EAST_WEST_POD_LABEL = ["istio", "eastwestgateway"] as const;

/**
 * The workloads that relay others' traffic (`<namespace>/<name>`), whose own series are hops, not
 * edges (docs/observability.md#istios-metrics): waypoints, the Gateways of class `istio-waypoint`,
 * and ambient east-west gateways (class `istio-east-west`), whose Deployments Istio names after the
 * Gateway; and the sidecar-mode east-west gateways, the pod controllers whose pods carry
 * `istio: eastwestgateway`. A request through them is counted from the proxies at its ends.
 */
export function relayWorkloads(objects: Pick<ClusterObjects, "gateways" | "deployments">): RelaySet {
  const relays = new Set<string>();
  for (const g of objects.gateways ?? []) {
    if (g.spec.gatewayClassName === "istio-waypoint" || g.spec.gatewayClassName === "istio-east-west")
      relays.add(`${g.metadata.namespace ?? "default"}/${g.metadata.name}`);
  }
  const [key, value] = EAST_WEST_POD_LABEL;
  for (const d of objects.deployments) {
    if (d.spec.template.metadata?.labels?.[key] === value) relays.add(`${d.metadata.namespace ?? "default"}/${d.metadata.name}`);
  }
  return relays;
}
