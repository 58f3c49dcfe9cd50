import type { ObjectDraft } from "../output/sink";
import { gatewayDestinationRule, destinationRules } from "./destination-rule";
import type { IstioDestinationState } from "./destination-state";
import { viewsOf } from "./hosts";
import { hostTokens, type RenderContext, viewKey } from "./routes";
import { type SubsetDemands, subsetsOf } from "./subsets";
import { virtualService } from "./virtual-service";

/**
 * An Istio destination after its policies were applied. Its views are recomputed when rendering
 * rather than kept: a destination federated to 99 meshes has 100, and holding them for every
 * destination between the two phases made a large tenant's heap much bigger than it needs to be.
 */
export interface IstioOutputs {
  state: IstioDestinationState;
  /** Set when the destination's mesh takes Gateway API routes: its route groups become HTTPRoutes, not VirtualServices. */
  routing?: "GATEWAY_API";
}

/**
 * The VirtualServices and DestinationRules of one Istio destination in every view, and — when it is
 * federated — the DestinationRule for its federated host beside the east-west gateway. Views that
 * would render the same VirtualService share one draft (`viewKey`). Runs after
 * every destination's policies were applied, because subsets are demanded by policies of *other*
 * destinations (their trafficShift targets).
 */
export function renderIstioDestination(outputs: IstioOutputs, demands: SubsetDemands, ctx: RenderContext): { cluster: string; draft: ObjectDraft }[] {
  const { state } = outputs;
  const destination = state.destination;
  const views = viewsOf(destination, ctx.model, ctx.plan);
  const exported = ctx.plan.exports.get(destination.metadata.name);
  const input = {
    state,
    subsets: subsetsOf(destination, demands),
    demandedSubsets: demands.subsets(destination.metadata.name),
    subsetParents: demands.parents(destination.metadata.name),
  };
  const out: { cluster: string; draft: ObjectDraft }[] = [];
  const tokens = hostTokens(state);
  const rendered = new Map<string, ObjectDraft | undefined>();
  for (const view of state.groups.size > 0 ? views : []) {
    const key = viewKey(state, view, tokens, ctx);
    if (!rendered.has(key)) rendered.set(key, virtualService(state, view, ctx));
    const vs = rendered.get(key);
    if (vs !== undefined) out.push({ cluster: view.cluster, draft: vs });
  }
  out.push(...destinationRules(input, views, ctx.model, exported));
  if (exported !== undefined) {
    const mesh = ctx.model.meshOf(destination);
    out.push({ cluster: destination.spec.cluster, draft: gatewayDestinationRule(input, exported, ctx.model, exported.objectName, mesh.spec.namespace) });
  }
  return out;
}
