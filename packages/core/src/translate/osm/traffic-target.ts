import type { Destination, IdentitySelector } from "../../api/index";
import { compareStrings, sortBy } from "../compare";
import type { AccessPolicy } from "../istio/authorization-policy";
import { type Model, refKey } from "../input/model";
import { generatedName } from "../output/naming";
import type { ObjectDraft } from "../output/sink";
import { SMI_API_VERSIONS } from "../output/versions";

interface Account {
  name: string;
  namespace: string;
}

function accountsOf(model: Model, destination: Destination, namespaces: readonly string[] | undefined): Account[] {
  const meshName = destination.spec.mesh;
  return [...model.workloads.values()]
    .filter((w) => w.spec.mesh === meshName && (namespaces === undefined || namespaces.includes(w.spec.namespace)))
    .map((w) => ({ name: w.spec.serviceAccount, namespace: w.spec.namespace }));
}

function unique(accounts: readonly Account[]): Account[] {
  const byKey = new Map(accounts.map((a) => [`${a.namespace}/${a.name}`, a]));
  return sortBy(byKey.values(), (a) => `${a.namespace}/${a.name}`);
}

/**
 * Source service accounts for a TrafficTarget. SMI names accounts, not patterns, so matchers expand
 * to the accounts of workloads in the destination's OSM mesh; OSM is single-cluster, so accounts of
 * other clusters cannot be authorised and are errors.
 */
export function osmSources(
  selectors: readonly IdentitySelector[] | undefined,
  destination: Destination,
  model: Model,
): { accounts: Account[]; errors: string[] } {
  if (selectors === undefined || selectors.length === 0) return { accounts: unique(accountsOf(model, destination, undefined)), errors: [] };
  const accounts: Account[] = [];
  const errors: string[] = [];
  const cluster = destination.spec.cluster;
  for (const s of selectors) {
    for (const sa of s.kubeServiceAccountRefs?.serviceAccounts ?? []) {
      if (sa.cluster === cluster || sa.cluster === undefined) accounts.push({ name: sa.name, namespace: sa.namespace });
      else
        errors.push(
          `OSM (SMI TrafficTarget) cannot authorise service account ${refKey({ cluster: sa.cluster, namespace: sa.namespace, name: sa.name })} of another cluster`,
        );
    }
    const m = s.kubeIdentityMatcher;
    if (m !== undefined && (m.clusters === undefined || m.clusters.includes(cluster))) accounts.push(...accountsOf(model, destination, m.namespaces));
  }
  return { accounts: unique(accounts), errors };
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** An Istio-style path (`/api/*`, `*.json`, exact, `*`) as the anchored RE2 regex SMI `pathRegex` takes. */
export function pathRegex(path: string): string {
  if (path === "*") return ".*";
  if (path.endsWith("*")) return `${escapeRegex(path.slice(0, -1))}.*`;
  if (path.startsWith("*")) return `.*${escapeRegex(path.slice(1))}`;
  return escapeRegex(path);
}

/**
 * An error when `allowedPorts` would narrow access on an OSM destination. SMI TrafficTarget
 * v1alpha3 has no port (v1alpha2 had one), and TCPRoute ports only govern TCP traffic, so HTTP
 * access cannot be limited by port; a list naming every port of the service (as service or pod
 * port) narrows nothing and is fine.
 */
export function osmPortError(policy: AccessPolicy, destination: Destination): string | undefined {
  const allowed = new Set(policy.spec.allowedPorts ?? []);
  if (allowed.size === 0) return undefined;
  const uncovered = destination.spec.ports.filter((p) => !allowed.has(p.port) && !(typeof p.targetPort === "number" && allowed.has(p.targetPort)));
  if (uncovered.length === 0) return undefined;
  return `OSM (SMI TrafficTarget v1alpha3) cannot limit access by port (allowedPorts): it would have to exclude port ${uncovered.map((p) => p.port).join(", ")}`;
}

/**
 * The SMI objects for one AccessPolicy on one OSM destination (docs/resources.md#accesspolicy): an
 * HTTPRouteGroup with one match per allowed path (all paths when none) carrying the allowed methods
 * (all when none), and a TrafficTarget per destination service account from the source accounts
 * (ports were checked by `osmPortError`). Nothing when no source account resolves.
 */
export function trafficTargets(
  policy: AccessPolicy,
  destination: Destination,
  destinationAccounts: readonly string[],
  sources: readonly Account[],
): ObjectDraft[] {
  if (sources.length === 0) return [];
  const { allowedPaths, allowedMethods } = policy.spec;
  const methods = allowedMethods?.length ? [...new Set(allowedMethods)].sort(compareStrings) : ["*"];
  const paths = allowedPaths?.length ? [...new Set(allowedPaths)].sort(compareStrings) : undefined;
  const matches =
    paths === undefined ? [{ name: "all", pathRegex: ".*", methods }] : paths.map((p, i) => ({ name: `path-${i}`, pathRegex: pathRegex(p), methods }));
  const groupName = generatedName(policy.metadata.name, destination.spec.name);
  const parents = [{ kind: "AccessPolicy" as const, name: policy.metadata.name }];
  const namespace = destination.spec.namespace;
  const group: ObjectDraft = { apiVersion: SMI_API_VERSIONS.specs, kind: "HTTPRouteGroup", name: groupName, namespace, spec: { matches }, parents };
  const targets = destinationAccounts.map(
    (account): ObjectDraft => ({
      apiVersion: SMI_API_VERSIONS.access,
      kind: "TrafficTarget",
      name: generatedName(policy.metadata.name, destination.spec.name, account),
      namespace,
      spec: {
        destination: { kind: "ServiceAccount", name: account, namespace },
        rules: [{ kind: "HTTPRouteGroup", name: groupName, matches: matches.map((m) => m.name) }],
        sources: sources.map((s) => ({ kind: "ServiceAccount", name: s.name, namespace: s.namespace })),
      },
      parents,
    }),
  );
  return [group, ...targets];
}
