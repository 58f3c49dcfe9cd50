import type { Destination, IdentitySelector } from "../../api/index";
import { compareStrings, sortBy } from "../compare";
import type { AccessPolicy } from "../istio/authorization-policy";
import type { Model } from "../model";
import { generatedName } from "../naming";
import type { ObjectDraft } from "../output";
import { allowedPodPorts } from "../istio/ports";
import { SMI_API_VERSIONS } from "../versions";

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
export function osmSources(selectors: readonly IdentitySelector[] | undefined, destination: Destination, model: Model): { accounts: Account[]; errors: string[] } {
  if (selectors === undefined || selectors.length === 0) return { accounts: unique(accountsOf(model, destination, undefined)), errors: [] };
  const accounts: Account[] = [];
  const errors: string[] = [];
  const cluster = destination.spec.cluster;
  for (const s of selectors) {
    for (const sa of s.kubeServiceAccountRefs?.serviceAccounts ?? []) {
      if (sa.cluster === cluster) accounts.push({ name: sa.name, namespace: sa.namespace });
      else errors.push(`OSM (SMI TrafficTarget) cannot authorise service account ${sa.cluster}/${sa.namespace}/${sa.name} of another cluster`);
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
 * The SMI objects for one AccessPolicy on one OSM destination (API.md §6): an HTTPRouteGroup with
 * one match per allowed path (all paths when none) carrying the allowed methods (all when none),
 * and a TrafficTarget per destination service account — and per allowed port (as the pod port,
 * like Istio's), since an SMI destination names one port — from the source accounts. Nothing when no source account resolves.
 */
export function trafficTargets(policy: AccessPolicy, destination: Destination, destinationAccounts: readonly string[], sources: readonly Account[]): ObjectDraft[] {
  if (sources.length === 0) return [];
  const { allowedPaths, allowedMethods, allowedPorts } = policy.spec;
  const methods = allowedMethods?.length ? [...new Set(allowedMethods)].sort(compareStrings) : ["*"];
  const paths = allowedPaths?.length ? [...new Set(allowedPaths)].sort(compareStrings) : undefined;
  const matches = paths === undefined ? [{ name: "all", pathRegex: ".*", methods }] : paths.map((p, i) => ({ name: `path-${i}`, pathRegex: pathRegex(p), methods }));
  const groupName = generatedName(policy.metadata.name, destination.spec.name);
  const parents = [{ kind: "AccessPolicy" as const, name: policy.metadata.name }];
  const namespace = destination.spec.namespace;
  const group: ObjectDraft = { apiVersion: SMI_API_VERSIONS.specs, kind: "HTTPRouteGroup", name: groupName, namespace, spec: { matches }, parents };
  const ports = allowedPorts?.length ? allowedPodPorts(destination, allowedPorts) : [undefined];
  const targets = destinationAccounts.flatMap((account) =>
    ports.map(
      (port): ObjectDraft => ({
        apiVersion: SMI_API_VERSIONS.access,
        kind: "TrafficTarget",
        name: port === undefined ? generatedName(policy.metadata.name, destination.spec.name, account) : generatedName(policy.metadata.name, destination.spec.name, account, String(port)),
        namespace,
        spec: {
          destination: { kind: "ServiceAccount", name: account, namespace, port },
          rules: [{ kind: "HTTPRouteGroup", name: groupName, matches: matches.map((m) => m.name) }],
          sources: sources.map((s) => ({ kind: "ServiceAccount", name: s.name, namespace: s.namespace })),
        },
        parents,
      }),
    ),
  );
  return [group, ...targets];
}
