import type { FederatedExport } from "../federation-plan";
import { gatewayExportTo } from "./federation";
import type { Model } from "../model";
import type { ObjectDraft, Parent } from "../output";
import type { IstioDestinationState } from "./destination-state";
import type { View } from "./hosts";
import type { DestinationTrafficPolicy, Subset } from "./types";

export interface DestinationRuleInput {
  state: IstioDestinationState;
  /** From `subsetsOf`, with labels. */
  subsets: Subset[];
  /** Policies whose trafficShift needs a subset of this destination. */
  subsetParents: ReadonlySet<string>;
}

function trafficPolicyOf(state: IstioDestinationState): DestinationTrafficPolicy {
  return { tls: { mode: "ISTIO_MUTUAL" }, ...(state.trafficPolicy.value as DestinationTrafficPolicy) };
}

function policyParents(input: DestinationRuleInput): Parent[] {
  const names = new Set([...input.state.trafficPolicy.parents, ...input.subsetParents]);
  return [...names].map((name) => ({ kind: "TrafficPolicy", name }));
}

/**
 * The DestinationRules of one Istio destination, one per view (API.md §5, always generated):
 * `tls.mode` ISTIO_MUTUAL unless an mtls policy says otherwise, the policies' outlierDetection,
 * connectionPool and loadBalancer, and subsets. Remote (federated) rules list subsets by name only:
 * there the endpoints are east-west gateways, which carry no workload labels, and the subset travels
 * in the SNI to the gateway, which picks the labelled subset (see `gatewayDestinationRule`). The
 * local rule has the Destination as a parent because it exists for the service alone.
 */
export function destinationRules(input: DestinationRuleInput, views: readonly View[], model: Model, exported: FederatedExport | undefined): ObjectDraft[] {
  const trafficPolicy = trafficPolicyOf(input.state);
  const parents = policyParents(input);
  const local = { host: views[0]?.host, trafficPolicy, subsets: input.subsets.length > 0 ? input.subsets : undefined };
  const remoteSubsets = input.subsets.map(({ name }) => ({ name }));
  const remote = { host: exported?.host, trafficPolicy, subsets: remoteSubsets.length > 0 ? remoteSubsets : undefined };
  return views.map((view) => ({
    apiVersion: model.istioVersions(view.cluster).networking,
    kind: "DestinationRule",
    name: view.name,
    namespace: view.namespace,
    spec: view.federated ? remote : local,
    parents: view.federated
      ? [{ kind: "VirtualMesh", name: (exported as FederatedExport).virtualMesh.metadata.name }, ...parents]
      : [{ kind: "Destination", name: input.state.destination.metadata.name }, ...parents],
  }));
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
