import { TranslateError } from "../errors";

/**
 * Every kind meshplane generates into a cluster, once. Everything else that names these kinds is
 * derived from this table: the translator's output order and the apiVersions it may emit
 * (versions.ts, output.ts), the agent's apply order and prune list, the end-to-end test's listing of
 * managed objects, and the chart test that holds the agent's RBAC to exactly these resources. The
 * Helm chart's ClusterRole is YAML and cannot import this; its test fails when the two differ.
 *
 * A row is a kind *of a group*: Istio's `Gateway` (networking.istio.io) and Gateway API's `Gateway`
 * (gateway.networking.k8s.io, waypoints and east-west gateways) are two rows, told apart by the
 * group of an object's apiVersion everywhere the table is read (rowOf, kindRank).
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
  { kind: "Gateway", group: "gateway.networking.k8s.io", versions: ["v1"], plural: "gateways" },
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
/** The groups a kind is generated in. */
type GroupOf<K extends GeneratedKind> = Extract<(typeof GENERATED_KINDS)[number], { kind: K }>["group"];

const groupKind = (group: string, kind: string) => `${group}\u0000${kind}`;
const ROWS = new Map<string, GeneratedKindRow>(GENERATED_KINDS.map((row) => [groupKind(row.group, row.kind), row]));
const RANKS = new Map<string, number>(GENERATED_KINDS.map((row, i) => [groupKind(row.group, row.kind), i]));

/** The group of an apiVersion (`networking.istio.io/v1` → `networking.istio.io`; core `v1` → ``). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf("/");
  return slash < 0 ? "" : apiVersion.slice(0, slash);
}

/** The row of an object of `kind` written as `apiVersion` (any version of the row's group); undefined when meshplane does not generate it. */
export function rowOf(apiVersion: string, kind: string): GeneratedKindRow | undefined {
  return ROWS.get(groupKind(groupOf(apiVersion), kind));
}

/** Position in apply order of `kind` in the group of `apiVersion`; a kind meshplane does not generate sorts after all of them. */
export function kindRank(apiVersion: string, kind: string): number {
  return RANKS.get(groupKind(groupOf(apiVersion), kind)) ?? GENERATED_KINDS.length;
}

/** Every `group/version` a row may be written in, preferred first. */
export function apiVersionsOf(row: GeneratedKindRow): string[] {
  return row.versions.map((version) => `${row.group}/${version}`);
}

/**
 * `group/version` of `kind` at `version` (default: its preferred one). A kind generated in several
 * groups (Gateway) needs `group`. Throws when the table does not list that version or cannot tell
 * the row: code asking for it would write objects the agent never prunes, a bug.
 */
export function apiVersionOf<K extends GeneratedKind>(kind: K, version?: string, group?: GroupOf<K>): string {
  const rows = GENERATED_KINDS.filter((row) => row.kind === kind && (group === undefined || row.group === group));
  if (rows.length !== 1) throw new TranslateError(`${kind} is generated in ${rows.length} groups; name the group`);
  const row = rows[0] as GeneratedKindRow;
  const chosen = version ?? row.versions[0];
  if (!row.versions.includes(chosen)) throw new TranslateError(`${kind} is not generated in ${version}; add it to GENERATED_KINDS`);
  return `${row.group}/${chosen}`;
}
