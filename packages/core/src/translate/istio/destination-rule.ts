import type { FederatedExport } from "../federation-plan";
import { gatewayExportTo } from "./federation";
import type { Mesh } from "../../api/index";
import type { VirtualMesh } from "../membership";
import type { Model } from "../model";
import { generatedName } from "../naming";
import type { ObjectDraft, Parent } from "../output";
import { OUTLIER_DEFAULTS } from "./decorators/outlier-detection";
import type { IstioDestinationState } from "./destination-state";
import type { View } from "./hosts";
import type { DestinationTrafficPolicy, Subset } from "./types";

/** An object and the cluster it goes to. */
export interface Placed {
  cluster: string;
  draft: ObjectDraft;
}

export interface DestinationRuleInput {
  state: IstioDestinationState;
  /** From `subsetsOf`, with labels. */
  subsets: Subset[];
  /** The subsets trafficShift routes use (a part of `subsets`). */
  demandedSubsets: Subset[];
  /** Policies whose trafficShift needs a subset of this destination. */
  subsetParents: ReadonlySet<string>;
}

/**
 * The DestinationRule's trafficPolicy: ISTIO_MUTUAL unless a policy says otherwise, and the policies'
 * fields. With outlier detection, no mesh default the user never chose: omitted outlier fields get
 * OUTLIER_DEFAULTS (Istio's own would eject at most 10 % of hosts), and locality load balancing is
 * pinned off unless a policy chose locality failover — Istio's default meshConfig enables it, and
 * with outlier detection it would keep traffic in the caller's locality though no policy asked.
 */
function trafficPolicyOf(state: IstioDestinationState): DestinationTrafficPolicy {
  const value = { tls: { mode: "ISTIO_MUTUAL" as const }, ...(state.trafficPolicy.value as DestinationTrafficPolicy) };
  const o = value.outlierDetection;
  if (o === undefined) return value;
  const outlierDetection = {
    consecutive5xxErrors: o.consecutive5xxErrors ?? OUTLIER_DEFAULTS.consecutiveErrors,
    interval: o.interval ?? OUTLIER_DEFAULTS.interval,
    baseEjectionTime: o.baseEjectionTime ?? OUTLIER_DEFAULTS.baseEjectionTime,
    maxEjectionPercent: o.maxEjectionPercent ?? OUTLIER_DEFAULTS.maxEjectionPercent,
  };
  const loadBalancer = value.loadBalancer?.localityLbSetting !== undefined ? value.loadBalancer : { ...value.loadBalancer, localityLbSetting: { enabled: false } };
  return { ...value, outlierDetection, loadBalancer };
}

function policyParents(input: DestinationRuleInput): Parent[] {
  const names = new Set([...input.state.trafficPolicy.parents, ...input.subsetParents]);
  return [...names].map((name) => ({ kind: "TrafficPolicy", name }));
}

/**
 * The DestinationRules of one Istio destination (API.md §5). Locally always: `tls.mode`
 * ISTIO_MUTUAL unless an mtls policy says otherwise, the policies' outlierDetection, connectionPool
 * and loadBalancer, and subsets; it has the Destination as a parent because it exists for the
 * service alone. In meshes it is federated to, only when it says more than the mesh-wide federation
 * rule (`federationDestinationRule`) does — policy fields, or subsets routes there use — because a
 * rule per federated host per mesh is millions of objects in a large tenant and Istio prefers the
 * exact host anyway. Remote subsets are listed by name only: there the endpoints are east-west
 * gateways, which carry no workload labels, and the subset travels in the SNI to the gateway, which
 * picks the labelled subset (see `gatewayDestinationRule`).
 */
export function destinationRules(input: DestinationRuleInput, views: readonly View[], model: Model, exported: FederatedExport | undefined): Placed[] {
  const [local, ...remote] = views;
  if (local === undefined) return [];
  const trafficPolicy = trafficPolicyOf(input.state);
  const parents = policyParents(input);
  const localRule: ObjectDraft = {
    apiVersion: model.istioVersions(local.cluster).networking,
    kind: "DestinationRule",
    name: local.name,
    namespace: local.namespace,
    spec: { host: local.host, trafficPolicy, subsets: input.subsets.length > 0 ? input.subsets : undefined },
    parents: [{ kind: "Destination", name: input.state.destination.metadata.name }, ...parents],
  };
  const demanded = input.demandedSubsets.map(({ name }) => ({ name }));
  const placedLocal = { cluster: local.cluster, draft: localRule };
  if (exported === undefined || (input.state.trafficPolicy.isEmpty && demanded.length === 0)) return [placedLocal];
  const spec = { host: exported.host, trafficPolicy, subsets: demanded.length > 0 ? demanded : undefined };
  // It exists because these policies need more than the federation rule gives; like federated
  // VirtualServices it lists only them, so it goes exactly when the last of them does.
  const remoteParents = parents;
  // One draft per API version and namespace, shared by every mesh that gets it.
  const drafts: ObjectDraft[] = [];
  const remoteRules = remote.map((view) => {
    const apiVersion = model.istioVersions(view.cluster).networking;
    let draft = drafts.find((d) => d.apiVersion === apiVersion && d.namespace === view.namespace);
    if (draft === undefined) {
      draft = { apiVersion, kind: "DestinationRule", name: view.name, namespace: view.namespace, spec, parents: remoteParents };
      drafts.push(draft);
    }
    return { cluster: view.cluster, draft };
  });
  return [placedLocal, ...remoteRules];
}

/**
 * In every mesh that receives federated hosts, one DestinationRule for all of them
 * (`*.<suffix>`): ISTIO_MUTUAL, so clients originate the mTLS whose SNI the remote east-west gateway
 * routes by (AUTO_PASSTHROUGH). Hosts with their own rule (above) override it.
 */
export function federationDestinationRule(mesh: Mesh, virtualMesh: VirtualMesh, suffix: string, model: Model): ObjectDraft {
  return {
    apiVersion: model.istioVersions(mesh.spec.cluster).networking,
    kind: "DestinationRule",
    name: generatedName(virtualMesh.metadata.name, "federation"),
    namespace: mesh.spec.namespace,
    spec: { host: `*.${suffix}`, trafficPolicy: { tls: { mode: "ISTIO_MUTUAL" } } },
    parents: [{ kind: "VirtualMesh", name: virtualMesh.metadata.name }],
  };
}

/**
 * On the destination's own cluster, the DestinationRule for its federated host, next to the local
 * ServiceEntry the east-west gateway routes SNI through (API.md §4): same subsets (with labels) and
 * TLS as the service's own rule, visible only to the gateways.
 */
export function gatewayDestinationRule(input: DestinationRuleInput, exported: FederatedExport, model: Model, name: string, namespace: string): ObjectDraft {
  const tls = trafficPolicyOf(input.state).tls;
  return {
    apiVersion: model.istioVersions(exported.destination.spec.cluster).networking,
    kind: "DestinationRule",
    name,
    namespace,
    spec: { host: exported.host, exportTo: gatewayExportTo(exported, namespace), trafficPolicy: { tls }, subsets: input.subsets.length > 0 ? input.subsets : undefined },
    parents: [{ kind: "VirtualMesh", name: exported.virtualMesh.metadata.name }, ...policyParents(input)],
  };
}
