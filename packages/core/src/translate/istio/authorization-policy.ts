import type { Destination, Mesh, StoredResource } from "../../api/index";
import { compareStrings } from "../compare";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";
import { trustDomainOf } from "../virtual-mesh/trust-domains";
import { allowedPodPorts } from "./ports";
import type { IstioSources } from "./principals";

export type AccessPolicy = StoredResource<"AccessPolicy">;

/** A rule and the AccessPolicy it comes from (undefined: its sources resolve to nobody). */
export interface PolicyRule {
  policy: AccessPolicy;
  rule: Record<string, unknown> | undefined;
}

/** The rule for `sources` on `paths`, `methods` and `ports`; undefined when the sources are nobody (a rule without `from` would admit everyone). */
function rule(policy: AccessPolicy, sources: IstioSources, ports: readonly number[] | undefined): Record<string, unknown> | undefined {
  const from = [
    ...(sources.principals.length > 0 ? [{ source: { principals: sources.principals } }] : []),
    ...(sources.namespaces.length > 0 ? [{ source: { namespaces: sources.namespaces } }] : []),
  ];
  if (from.length === 0) return undefined;
  const { allowedPaths, allowedMethods } = policy.spec;
  const operation = {
    paths: allowedPaths?.length ? [...new Set(allowedPaths)].sort(compareStrings) : undefined,
    methods: allowedMethods?.length ? [...new Set(allowedMethods)].sort(compareStrings) : undefined,
    ports: ports?.length ? ports.map(String) : undefined,
  };
  const hasOperation = Object.values(operation).some((v) => v !== undefined);
  return { from, ...(hasOperation ? { to: [{ operation }] } : {}) };
}

/**
 * One AuthorizationPolicy rule for one AccessPolicy on one destination's pods
 * (docs/resources.md#accesspolicy): `from` the resolved sources, `to` the allowed paths, methods
 * and ports — the pods' ports (a Service port maps to its numeric targetPort), which is what the
 * pod's proxy sees. Undefined when the sources resolve to nobody — a rule without `from` would
 * admit everyone.
 */
export function authorizationRule(policy: AccessPolicy, destination: Destination, sources: IstioSources): Record<string, unknown> | undefined {
  const ports = policy.spec.allowedPorts;
  return rule(policy, sources, ports?.length ? allowedPodPorts(destination, ports) : undefined);
}

/**
 * The rule of one AccessPolicy in the AuthorizationPolicy a destination's waypoint enforces
 * (docs/ambient.md#accesspolicy): as `authorizationRule`, but its ports are the Service's ports as
 * written. The waypoint takes the call addressed to the service, so the port it sees is the service
 * port (Istio picks the waypoint's filter chain for a service by it), not the pod's targetPort.
 */
export function waypointRule(policy: AccessPolicy, sources: IstioSources): Record<string, unknown> | undefined {
  const ports = policy.spec.allowedPorts;
  return rule(policy, sources, ports?.length ? [...new Set(ports)].sort((a, b) => a - b) : undefined);
}

/**
 * The identity a waypoint calls the pods behind it with (docs/ambient.md#accesspolicy): istiod's
 * deployment controller runs a waypoint under a ServiceAccount named after its Gateway (the class
 * `istio-waypoint` adds no suffix), so `<trustDomain>/ns/<namespace>/sa/<gateway>`. A Gateway that
 * names another account (`gateway.istio.io/service-account`) is not seen by discovery.
 */
export function waypointPrincipal(mesh: Mesh, waypoint: { name: string; namespace: string }): string {
  return `${trustDomainOf(mesh)}/ns/${waypoint.namespace}/sa/${waypoint.name}`;
}

/**
 * The AuthorizationPolicy of a destination's pods: ALLOW, scoped by the Service's selector, `first`
 * (e.g. the rule admitting the service's waypoint) then one rule per accepted AccessPolicy (sorted by
 * policy name; rules are ORed). Generated whenever one policy was accepted, even if its sources
 * matched nobody: the user asked to restrict access, and an ALLOW policy with no matching rule
 * denies, which is what "allow only nobody" means.
 */
export function authorizationPolicy(destination: Destination, rules: PolicyRule[], model: Model, first: Record<string, unknown>[] = []): ObjectDraft {
  return {
    apiVersion: model.istioVersions(destination.spec.cluster).security,
    kind: "AuthorizationPolicy",
    name: generatedName(destination.spec.name),
    namespace: destination.spec.namespace,
    spec: { selector: { matchLabels: destination.spec.selector }, action: "ALLOW", rules: [...first, ...rules.flatMap((r) => (r.rule ? [r.rule] : []))] },
    parents: rules.map((r) => ({ kind: "AccessPolicy", name: r.policy.metadata.name })),
  };
}

/**
 * The AuthorizationPolicy a destination's waypoint enforces (docs/ambient.md#accesspolicy): in the
 * Service's namespace, bound to the Service by `targetRefs` — Istio attaches it to the waypoint that
 * serves the Service, for calls addressed to the Service, and ztunnel ignores it — ALLOW, one rule
 * per accepted AccessPolicy (`waypointRule`). The waypoint sees the real caller and the request, so
 * identities, paths, methods and ports all hold there.
 */
export function waypointAuthorizationPolicy(destination: Destination, rules: PolicyRule[], model: Model): ObjectDraft {
  return {
    apiVersion: model.istioVersions(destination.spec.cluster).security,
    kind: "AuthorizationPolicy",
    name: generatedName(destination.spec.name, "waypoint"),
    namespace: destination.spec.namespace,
    spec: {
      targetRefs: [{ group: "", kind: "Service", name: destination.spec.name }],
      action: "ALLOW",
      rules: rules.flatMap((r) => (r.rule ? [r.rule] : [])),
    },
    parents: rules.map((r) => ({ kind: "AccessPolicy", name: r.policy.metadata.name })),
  };
}
