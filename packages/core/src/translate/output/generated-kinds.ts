import { TranslateError } from "../errors";

/**
 * Every kind meshplane generates into a cluster, once. Everything else that names these kinds is
 * derived from this table: the translator's output order and the apiVersions it may emit
 * (versions.ts, output.ts), the agent's apply order and prune list, the end-to-end test's listing of
 * managed objects, and the chart test that holds the agent's RBAC to exactly these resources. The
 * Helm chart's ClusterRole is YAML and cannot import this; its test fails when the two differ.
 *
 * Row order is apply order (docs/agent.md#stages, step 5). Make before break: hosts (ServiceEntry)
 * exist before anything names them, subsets (DestinationRule) before routes (VirtualService,
 * HTTPRoute) use them, clients send
 * mTLS before PeerAuthentication demands it, SMI route groups before the TrafficTargets that name
 * them. Prune runs in the reverse order.
 *
 * `versions` are every version meshplane may write the kind in (Istio's v1 for Istio 1.22 and later,
 * else v1beta1 — see versions.ts); the agent prunes in all of them, so a version missing here would
 * leave objects behind. The first is the one a current cluster gets.
 */
export const GENERATED_KINDS = [
  { kind: "ServiceEntry", group: "networking.istio.io", versions: ["v1", "v1beta1"], plural: "serviceentries" },
  { kind: "DestinationRule", group: "networking.istio.io", versions: ["v1", "v1beta1"], plural: "destinationrules" },
  { kind: "Gateway", group: "networking.istio.io", versions: ["v1", "v1beta1"], plural: "gateways" },
  { kind: "VirtualService", group: "networking.istio.io", versions: ["v1", "v1beta1"], plural: "virtualservices" },
  { kind: "HTTPRoute", group: "gateway.networking.k8s.io", versions: ["v1"], plural: "httproutes" },
  { kind: "PeerAuthentication", group: "security.istio.io", versions: ["v1", "v1beta1"], plural: "peerauthentications" },
  { kind: "AuthorizationPolicy", group: "security.istio.io", versions: ["v1", "v1beta1"], plural: "authorizationpolicies" },
  { kind: "HTTPRouteGroup", group: "specs.smi-spec.io", versions: ["v1alpha4"], plural: "httproutegroups" },
  { kind: "TrafficTarget", group: "access.smi-spec.io", versions: ["v1alpha3"], plural: "traffictargets" },
  { kind: "TrafficSplit", group: "split.smi-spec.io", versions: ["v1alpha2"], plural: "trafficsplits" },
] as const satisfies readonly GeneratedKindRow[];

export interface GeneratedKindRow {
  kind: string;
  group: string;
  versions: readonly [string, ...string[]];
  plural: string;
}

export type GeneratedKind = (typeof GENERATED_KINDS)[number]["kind"];

const ROWS = new Map<string, GeneratedKindRow>(GENERATED_KINDS.map((row) => [row.kind, row]));
const RANKS = new Map<string, number>(GENERATED_KINDS.map((row, i) => [row.kind, i]));

/** Position of `kind` in apply order; a kind meshplane does not generate sorts after all of them. */
export function kindRank(kind: string): number {
  return RANKS.get(kind) ?? GENERATED_KINDS.length;
}

/** Every `group/version` a row may be written in, preferred first. */
export function apiVersionsOf(row: GeneratedKindRow): string[] {
  return row.versions.map((version) => `${row.group}/${version}`);
}

/**
 * `group/version` of `kind` at `version` (default: its preferred one). Throws when the table does not
 * list that version: code asking for it would write objects the agent never prunes, a bug.
 */
export function apiVersionOf(kind: GeneratedKind, version?: string): string {
  const row = ROWS.get(kind) as GeneratedKindRow;
  const chosen = version ?? row.versions[0];
  if (!row.versions.includes(chosen)) throw new TranslateError(`${kind} is not generated in ${version}; add it to GENERATED_KINDS`);
  return `${row.group}/${chosen}`;
}
