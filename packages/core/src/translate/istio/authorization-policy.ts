import type { Destination, StoredResource } from "../../api/index";
import { compareStrings } from "../compare";
import type { Model } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";
import { allowedPodPorts } from "./ports";
import type { IstioSources } from "./principals";

export type AccessPolicy = StoredResource<"AccessPolicy">;

/**
 * One AuthorizationPolicy rule for one AccessPolicy on one destination
 * (docs/resources.md#accesspolicy): `from` the resolved sources, `to` the allowed paths, methods
 * and ports. Undefined when the sources resolve to nobody — a rule without `from` would admit
 * everyone.
 */
export function authorizationRule(policy: AccessPolicy, destination: Destination, sources: IstioSources): Record<string, unknown> | undefined {
  const from = [
    ...(sources.principals.length > 0 ? [{ source: { principals: sources.principals } }] : []),
    ...(sources.namespaces.length > 0 ? [{ source: { namespaces: sources.namespaces } }] : []),
  ];
  if (from.length === 0) return undefined;
  const { allowedPaths, allowedMethods, allowedPorts } = policy.spec;
  const operation = {
    paths: allowedPaths?.length ? [...new Set(allowedPaths)].sort(compareStrings) : undefined,
    methods: allowedMethods?.length ? [...new Set(allowedMethods)].sort(compareStrings) : undefined,
    ports: allowedPorts?.length ? allowedPodPorts(destination, allowedPorts).map(String) : undefined,
  };
  const hasOperation = Object.values(operation).some((v) => v !== undefined);
  return { from, ...(hasOperation ? { to: [{ operation }] } : {}) };
}

/**
 * The AuthorizationPolicy of a destination: ALLOW, scoped by the Service's selector, one rule per
 * accepted AccessPolicy (sorted by policy name; rules are ORed). Generated whenever one policy was
 * accepted, even if its sources matched nobody: the user asked to restrict access, and an ALLOW
 * policy with no matching rule denies, which is what "allow only nobody" means.
 */
export function authorizationPolicy(
  destination: Destination,
  rules: { policy: AccessPolicy; rule: Record<string, unknown> | undefined }[],
  model: Model,
): ObjectDraft {
  return {
    apiVersion: model.istioVersions(destination.spec.cluster).security,
    kind: "AuthorizationPolicy",
    name: generatedName(destination.spec.name),
    namespace: destination.spec.namespace,
    spec: { selector: { matchLabels: destination.spec.selector }, action: "ALLOW", rules: rules.flatMap((r) => (r.rule ? [r.rule] : [])) },
    parents: rules.map((r) => ({ kind: "AccessPolicy", name: r.policy.metadata.name })),
  };
}
