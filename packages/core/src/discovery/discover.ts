import type { DiscoveryResult } from "../api/discovery";
import { attachZtunnel } from "./ambient";
import { compareStrings, indexCluster } from "./cluster-index";
import { discoverDestinations } from "./destinations";
import { attachEastWestGateways } from "./east-west";
import { attachGatewayApi } from "./gateway-api-crds";
import { attachGateways } from "./gateways";
import { discoverIstioMeshes } from "./istio-mesh";
import { attachMultiNetwork } from "./multi-network";
import type { ClusterObjects } from "./kube";
import { discoverOsmMeshes } from "./osm-mesh";
import { discoverWorkloads } from "./workloads";
import type { ReportProblem } from "./report";
import { attachWaypoints } from "./waypoints";

export interface DiscoverOptions {
  /** Receives the cluster objects discovery had to skip and why; ignored when absent. */
  report?: ReportProblem;
}

/**
 * Translates one cluster's objects into the Meshes, Workloads and Destinations it reports
 * (docs/resources.md#discovery), with Istio's ambient data plane (docs/ambient.md#what-discovery-sees). Pure and deterministic: the same objects in any list order give a
 * deep-equal result, every list sorted by name and every map by key, so the agent can hash it.
 * Objects that cannot be used are skipped and passed to `options.report`; nothing is thrown for
 * anything a cluster may contain.
 */
export function discover(input: ClusterObjects, options: DiscoverOptions = {}): DiscoveryResult {
  const report = options.report ?? (() => undefined);
  const index = indexCluster(input);
  const found = [...discoverIstioMeshes(index, report), ...discoverOsmMeshes(index)].toSorted((a, b) => compareStrings(a.metadata.name, b.metadata.name));
  const ambient = attachMultiNetwork(index, attachZtunnel(index, attachGateways(index, found)));
  const meshes = attachGatewayApi(index, attachEastWestGateways(index, attachWaypoints(index, ambient)));
  const workloads = discoverWorkloads(index, meshes);
  return { meshes, workloads, destinations: discoverDestinations(index, meshes, workloads) };
}
