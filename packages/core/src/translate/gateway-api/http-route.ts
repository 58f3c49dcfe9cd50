import type { Destination } from "../../api/index";
import { compareStrings } from "../compare";
import type { IstioDestinationState, RouteGroup } from "../istio/destination-state";
import { httpPorts } from "../istio/ports";
import { apiVersionOf } from "../output/generated-kinds";
import type { ObjectDraft } from "../output/sink";
import type { OwnedFields } from "../policy/owned-fields";
import type { BackendRef, RuleFields } from "./decorators/index";
import { EVERY_PATH, routeMatch } from "./matches";

type Modifier = NonNullable<RuleFields["requestHeaderModifier"]>;

function modifierFilter(type: "RequestHeaderModifier" | "ResponseHeaderModifier", m: Modifier): Record<string, unknown> {
  const add = Object.entries(m.add ?? {})
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([name, value]) => ({ name, value }));
  const body = { ...(add.length > 0 ? { add } : {}), ...(m.remove === undefined ? {} : { remove: m.remove }) };
  return { type, [type === "RequestHeaderModifier" ? "requestHeaderModifier" : "responseHeaderModifier"]: body };
}

function filtersOf(fields: RuleFields): Record<string, unknown>[] {
  const filters: Record<string, unknown>[] = [];
  if (fields.requestHeaderModifier) filters.push(modifierFilter("RequestHeaderModifier", fields.requestHeaderModifier));
  if (fields.responseHeaderModifier) filters.push(modifierFilter("ResponseHeaderModifier", fields.responseHeaderModifier));
  if (fields.requestMirror) filters.push({ type: "RequestMirror", requestMirror: fields.requestMirror });
  return filters;
}

/**
 * One HTTPRoute rule: the group's matches (none: every request, written as the API server's
 * default, one match of every path), its filters, and where it sends.
 */
function rule(group: RouteGroup | undefined, fields: RuleFields, self: BackendRef): Record<string, unknown> {
  const filters = filtersOf(fields);
  const matchers = group?.matchers ?? [];
  return {
    matches: matchers.length > 0 ? matchers.map(routeMatch) : [{ path: { ...EVERY_PATH } }],
    ...(filters.length > 0 ? { filters } : {}),
    backendRefs: fields.backendRefs ?? [self],
    ...(fields.timeouts === undefined ? {} : { timeouts: fields.timeouts }),
    ...(fields.retry === undefined ? {} : { retry: fields.retry }),
  };
}

/**
 * The HTTPRoutes of a destination in a `GATEWAY_API` mesh (docs/ambient.md#trafficpolicy-as-httproute):
 * one per HTTP port a policy route covers, in the Service's namespace and cluster, whose parent is
 * the Service at that port — Istio applies it in callers' sidecars and on the service's waypoint.
 * Named like the service, or `<service>.<port>` when the service has several HTTP ports: a Service
 * name has no dot, so no other service's route can take that name (`<service>-<port>` could be
 * another single-port service's). Rules go
 * in acceptance order, those with matchers first; a port no policy catches entirely ends with a
 * rule to the service itself, so a policy for `/api` does not take the rest offline. Parents are
 * the policies whose fields the route carries.
 */
export function httpRoutes(state: IstioDestinationState): { cluster: string; draft: ObjectDraft }[] {
  const destination: Destination = state.destination;
  const { cluster, namespace, name } = destination.spec;
  const ports = httpPorts(destination);
  const groups = [...state.groups.values()].sort(
    (a, b) => Number(a.matchers === undefined || a.matchers.length === 0) - Number(b.matchers === undefined || b.matchers.length === 0) || a.rank - b.rank,
  );
  const out: { cluster: string; draft: ObjectDraft }[] = [];
  for (const { port } of ports) {
    const here = groups.filter((g) => g.byPort.has(port));
    if (here.length === 0) continue;
    const self: BackendRef = { name, port };
    const parents = new Set<string>();
    const rules = here.map((g) => {
      const owned = g.byPort.get(port) as OwnedFields;
      for (const p of owned.parents) parents.add(p);
      return rule(g, owned.value as RuleFields, self);
    });
    if (here.every((g) => (g.matchers ?? []).length > 0)) rules.push(rule(undefined, {}, self));
    out.push({
      cluster,
      draft: {
        apiVersion: apiVersionOf("HTTPRoute"),
        kind: "HTTPRoute",
        name: ports.length === 1 ? name : `${name}.${port}`,
        namespace,
        spec: { parentRefs: [{ group: "", kind: "Service", name, port }], rules },
        parents: [...parents].map((p) => ({ kind: "TrafficPolicy", name: p })),
      },
    });
  }
  return out;
}
