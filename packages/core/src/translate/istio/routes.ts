import type { FederationPlan } from "../virtual-mesh/federation-plan";
import type { Model } from "../input/model";
import type { OwnedFields } from "../policy/owned-fields";
import type { IstioDestinationState } from "./destination-state";
import { resolveHost, type View } from "./hosts";
import { isCatchAll, matchVariants } from "./matchers";
import { httpPorts } from "./ports";
import { compareSpecificity, type RankedRoute } from "./specificity";
import type { HttpRoute, HttpRouteFields, RouteDestination } from "./types";

/** What rendering a destination's objects for a view reads besides the destination's state. */
export interface RenderContext {
  model: Model;
  plan: FederationPlan;
}

function resolved(destination: RouteDestination, view: View, ctx: RenderContext): RouteDestination {
  return { ...destination, host: resolveHost(destination.host, view.mesh, ctx.model, ctx.plan) };
}

/** Route fields with host tokens replaced by the hosts clients in `view` use. */
function renderFields(fields: HttpRouteFields, view: View, ctx: RenderContext): HttpRouteFields {
  return {
    ...fields,
    route: fields.route?.map((r) => ({ ...r, destination: resolved(r.destination, view, ctx) })),
    mirror: fields.mirror === undefined ? undefined : resolved(fields.mirror, view, ctx),
  };
}

function toService(view: View, port: number): HttpRoute["route"] {
  return [{ destination: { host: view.host, port: { number: port } } }];
}

/**
 * The http routes of a destination's VirtualService in one view, most specific first
 * (docs/resources.md#trafficpolicy): one route per (group × request matcher × source × port), each
 * match carrying its port. Routes without a trafficShift go to the service itself. When policy
 * routes exist, every HTTP port that no policy route catches entirely gets a final catch-all to the
 * service: a VirtualService's unmatched requests get a 404, and a policy for `/api` must not take
 * the rest of the service offline. Returns no routes when no policy route applies in this view
 * (then there is no VirtualService), and the policies whose routes were rendered *here* — a group
 * whose sources are all in other clusters contributes nothing here and must not be named.
 */
export function renderRoutes(state: IstioDestinationState, view: View, ctx: RenderContext): { routes: HttpRoute[]; parents: Set<string> } {
  const ranked: (RankedRoute & { route: HttpRoute })[] = [];
  const parents = new Set<string>();
  for (const group of state.groups.values()) {
    const variants = matchVariants(group.sources, group.matchers, view.cluster);
    if (variants.length === 0) continue;
    for (const port of [...group.byPort.keys()].sort((a, b) => a - b)) {
      const owned = group.byPort.get(port) as OwnedFields;
      for (const p of owned.parents) parents.add(p);
      const fields = renderFields(owned.value as HttpRouteFields, view, ctx);
      for (const variant of variants) {
        const match = { ...variant, port };
        const route: HttpRoute = { match: [match], ...fields, route: fields.route ?? toService(view, port) };
        ranked.push({ match, rank: group.rank, text: JSON.stringify(match), route });
      }
    }
  }
  if (ranked.length === 0) return { routes: [], parents };
  const routes = ranked.sort(compareSpecificity).map((r) => r.route);
  const caught = new Set(ranked.filter((r) => isCatchAll(r.match)).map((r) => r.match.port));
  for (const { port } of httpPorts(state.destination)) {
    if (!caught.has(port)) routes.push({ match: [{ port }], route: toService(view, port) });
  }
  return { routes, parents };
}

/** Host tokens the routes of `state` name (trafficShift and mirror targets), each once. */
export function hostTokens(state: IstioDestinationState): string[] {
  const tokens = new Set<string>();
  for (const group of state.groups.values()) {
    for (const owned of group.byPort.values()) {
      const fields = owned.value as HttpRouteFields;
      for (const r of fields.route ?? []) tokens.add(r.destination.host);
      if (fields.mirror !== undefined) tokens.add(fields.mirror.host);
    }
  }
  return [...tokens];
}

/**
 * Everything `renderRoutes` reads from a view, as a string: views with equal keys get equal routes,
 * so a destination federated to 99 meshes renders its VirtualService once or a few times, not 99.
 * (The hosts the targets resolve to, which source selectors apply in the view's cluster, and the
 * view's own host and placement.)
 */
export function viewKey(state: IstioDestinationState, view: View, tokens: readonly string[], ctx: RenderContext): string {
  const parts = [view.host, view.namespace, view.name, ctx.model.istioVersions(view.cluster).networking];
  for (const token of tokens) parts.push(resolveHost(token, view.mesh, ctx.model, ctx.plan));
  for (const group of state.groups.values()) {
    parts.push((group.sources ?? []).map((s) => ((s.kubeWorkloadMatcher.clusters?.includes(view.cluster) ?? true) ? "1" : "0")).join(""));
  }
  return parts.join("\u0000");
}
