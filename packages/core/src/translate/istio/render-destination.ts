import type { ObjectDraft } from "../output";
import { generatedName } from "../naming";
import { gatewayDestinationRule, destinationRules } from "./destination-rule";
import type { IstioDestinationState } from "./destination-state";
import type { View } from "./hosts";
import type { RenderContext } from "./routes";
import { type SubsetDemands, subsetsOf } from "./subsets";
import { virtualService } from "./virtual-service";

/** An Istio destination after its policies were applied: merged fields and the clusters to render them in. */
export interface IstioOutputs {
  state: IstioDestinationState;
  views: View[];
}

/**
 * The VirtualServices and DestinationRules of one Istio destination in every view, and — when it is
 * federated — the DestinationRule for its federated host beside the east-west gateway. Runs after
 * every destination's policies were applied, because subsets are demanded by policies of *other*
 * destinations (their trafficShift targets).
 */
export function renderIstioDestination(outputs: IstioOutputs, demands: SubsetDemands, ctx: RenderContext): { cluster: string; draft: ObjectDraft }[] {
  const { state, views } = outputs;
  const destination = state.destination;
  const exported = ctx.plan.exports.get(destination.metadata.name);
  const input = { state, subsets: subsetsOf(destination, demands), subsetParents: demands.parents(destination.metadata.name) };
  const out: { cluster: string; draft: ObjectDraft }[] = [];
  for (const view of views) {
    const vs = virtualService(state, view, ctx);
    if (vs !== undefined) out.push({ cluster: view.cluster, draft: vs });
  }
  const rules = destinationRules(input, views, ctx.model, exported);
  rules.forEach((draft, i) => out.push({ cluster: (views[i] as View).cluster, draft }));
  if (exported !== undefined) {
    const mesh = ctx.model.meshOf(destination);
    out.push({ cluster: destination.spec.cluster, draft: gatewayDestinationRule(input, exported, ctx.model, generatedName(exported.host), mesh.spec.namespace) });
  }
  return out;
}
