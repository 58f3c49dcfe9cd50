import type { ObjectDraft } from "../output/sink";
import type { IstioDestinationState } from "./destination-state";
import type { View } from "./hosts";
import { type RenderContext, renderRoutes } from "./routes";

/**
 * The VirtualService for a destination in one view (its own cluster, or a mesh it is federated to),
 * named like the service locally and like the federated host remotely; undefined when no policy
 * route applies there ("no route left → no VirtualService"). Parents are the policies whose route
 * fields it carries in that view.
 */
export function virtualService(state: IstioDestinationState, view: View, ctx: RenderContext): ObjectDraft | undefined {
  const { routes: http, parents } = renderRoutes(state, view, ctx);
  if (http.length === 0) return undefined;
  return {
    apiVersion: ctx.model.istioVersions(view.cluster).networking,
    kind: "VirtualService",
    name: view.name,
    namespace: view.namespace,
    spec: { hosts: [view.host], http },
    parents: [...parents].map((name) => ({ kind: "TrafficPolicy", name })),
  };
}
