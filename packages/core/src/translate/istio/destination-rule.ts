import type { FederatedExport } from "../virtual-mesh/federation-plan";
import { gatewayExportTo } from "./federation";
import type { Mesh } from "../../api/index";
import type { VirtualMesh } from "../virtual-mesh/membership";
import type { Model } from "../input/model";
import { compareStrings } from "../compare";
import { generatedName, subsetName } from "../output/naming";
import type { Fields, OwnedFields } from "../policy/owned-fields";
import { overlay, type ScopedFields, scopeKey } from "./caller-scopes";
import type { ObjectDraft, Parent } from "../output/sink";
import { OUTLIER_DEFAULTS } from "./decorators/outlier-detection";
import type { IstioDestinationState } from "./destination-state";
import type { View } from "./hosts";
import type { DestinationTrafficPolicy, Subset } from "./types";

/** An object and the cluster it goes to. */
export interface Placed {
  cluster: string;
  draft: ObjectDraft;
}

export interface DestinationRuleInput {
  state: IstioDestinationState;
  /** From `subsetsOf`, with labels. */
  subsets: Subset[];
  /** The subsets trafficShift routes use (a part of `subsets`). */
  demandedSubsets: Subset[];
  /** Policies whose trafficShift needs a subset of this destination. */
  subsetParents: ReadonlySet<string>;
}

/**
 * A DestinationRule's trafficPolicy from merged policy fields: ISTIO_MUTUAL unless a policy says
 * otherwise, and the policies' fields. With outlier detection, no mesh default the user never chose:
 * omitted outlier fields get OUTLIER_DEFAULTS (Istio's own would eject at most 10 % of hosts), and
 * locality load balancing is pinned off unless a policy chose locality failover — Istio's default
 * meshConfig enables it, and with outlier detection it would keep traffic in the caller's locality
 * though no policy asked.
 */
function trafficPolicyOf(fields: Fields): DestinationTrafficPolicy {
  const value = { tls: { mode: "ISTIO_MUTUAL" as const }, ...(fields as DestinationTrafficPolicy) };
  const o = value.outlierDetection;
  if (o === undefined) return value;
  const outlierDetection = {
    consecutive5xxErrors: o.consecutive5xxErrors ?? OUTLIER_DEFAULTS.consecutiveErrors,
    interval: o.interval ?? OUTLIER_DEFAULTS.interval,
    baseEjectionTime: o.baseEjectionTime ?? OUTLIER_DEFAULTS.baseEjectionTime,
    maxEjectionPercent: o.maxEjectionPercent ?? OUTLIER_DEFAULTS.maxEjectionPercent,
  };
  const loadBalancer =
    value.loadBalancer?.localityLbSetting !== undefined ? value.loadBalancer : { ...value.loadBalancer, localityLbSetting: { enabled: false } };
  return { ...value, outlierDetection, loadBalancer };
}

/** The TrafficPolicies behind a rule: those whose fields it carries, and those whose routes need its subsets. */
function policyParents(input: DestinationRuleInput, fields: readonly (OwnedFields | undefined)[]): Parent[] {
  const names = new Set<string>();
  for (const f of fields) for (const name of f?.parents ?? []) names.add(name);
  for (const name of input.subsetParents) names.add(name);
  return [...names].map((name) => ({ kind: "TrafficPolicy", name }));
}

/** What every caller in one view gets, and what rules for narrower callers there start from. */
interface ViewBase {
  view: View;
  fields: Fields;
  subsets: Subset[] | undefined;
  /** Whether the view's own DestinationRule is rendered (a federated host's only when it says more). */
  ownRule: boolean;
}

/**
 * The parents of a rule for narrower callers: the policies it exists for — those of its own scopes —
 * not those whose fields it inherits from wider scopes; it must go when its own policies go.
 */
function scopeParents(cells: readonly (ScopedFields | undefined)[]): Parent[] {
  return [...new Set(cells.flatMap((c) => [...(c?.fields.parents ?? [])]))].map((name) => ({ kind: "TrafficPolicy", name }));
}

/**
 * The rules for callers narrower than a whole cluster (caller-scopes.ts) in one view, namespace by
 * namespace: a rule for every caller of the namespace when a policy selects them, or else — when
 * there are labelled rules and the view's own rule lives elsewhere — a copy of the view's rule,
 * because Istio looks in the caller's namespace first and would otherwise leave the callers no
 * labelled rule selects with no rule at all (no subsets, no mTLS origination). The namespace rule is
 * exported to its namespace by name, not with `.`: Istio merges a rule into a workload-selected one
 * with an equal exportTo instead of keeping it as the fallback. Labelled rules carry a
 * workloadSelector; their names cannot collide, because overlapping label sets are refused.
 */
function callerRules(base: ViewBase, input: DestinationRuleInput, model: Model): Placed[] {
  const { view } = base;
  const byNamespace = new Map<string, { all?: ScopedFields; labelled: ScopedFields[] }>();
  for (const cell of input.state.scoped.values()) {
    const { cluster, namespace, labels } = cell.scope;
    if (cluster !== view.cluster || namespace === undefined) continue;
    const entry = byNamespace.get(namespace) ?? { labelled: [] };
    byNamespace.set(namespace, entry);
    if (labels === undefined) entry.all = cell;
    else entry.labelled.push(cell);
  }
  const apiVersion = model.istioVersions(view.cluster).networking;
  const out: Placed[] = [];
  const place = (name: string, namespace: string, spec: Record<string, unknown>, parents: Parent[]) =>
    out.push({ cluster: view.cluster, draft: { apiVersion, kind: "DestinationRule", name, namespace, spec, parents } });
  for (const namespace of [...byNamespace.keys()].sort(compareStrings)) {
    const { all, labelled } = byNamespace.get(namespace) as { all?: ScopedFields; labelled: ScopedFields[] };
    const fields = overlay(base.fields, all?.fields.value);
    // A federated host's object name is unique in its namespace already; a local one is not across namespaces.
    const ruleName = view.federated ? generatedName(view.name, "callers") : generatedName(view.name, view.namespace, "callers");
    if (all !== undefined || !(base.ownRule && namespace === view.namespace)) {
      place(
        ruleName,
        namespace,
        { host: view.host, exportTo: [namespace], trafficPolicy: trafficPolicyOf(fields), subsets: base.subsets },
        scopeParents([all, ...labelled]),
      );
    }
    for (const cell of labelled.sort((a, b) => compareStrings(scopeKey(a.scope), scopeKey(b.scope)))) {
      const matchLabels = cell.scope.labels as Record<string, string>;
      const spec = {
        host: view.host,
        workloadSelector: { matchLabels },
        exportTo: ["."],
        trafficPolicy: trafficPolicyOf(overlay(fields, cell.fields.value)),
        subsets: base.subsets,
      };
      place(generatedName(ruleName, subsetName(matchLabels)), namespace, spec, scopeParents([cell]));
    }
  }
  return out;
}

/**
 * The DestinationRules of one Istio destination (docs/resources.md#trafficpolicy). Locally always:
 * `tls.mode` ISTIO_MUTUAL unless an mtls policy says otherwise, the policies' outlierDetection,
 * connectionPool and loadBalancer, and subsets; it has the Destination as a parent because it
 * exists for the service alone. In meshes it is federated to, only when it says more than the
 * mesh-wide federation rule (`federationDestinationRule`) does — policy fields, or subsets routes
 * there use — because a rule per federated host per mesh is millions of objects in a large tenant
 * and Istio prefers the exact host anyway. Remote subsets are listed by name only: there the
 * endpoints are east-west gateways, which carry no workload labels, and the subset travels in the
 * SNI to the gateway, which picks the labelled subset (see `gatewayDestinationRule`). Fields of
 * policies with a sourceSelector go only where their callers are (`callerRules`).
 */
export function destinationRules(input: DestinationRuleInput, views: readonly View[], model: Model, exported: FederatedExport | undefined): Placed[] {
  const out: Placed[] = [];
  const everyone = input.state.trafficPolicy;
  const demanded = input.demandedSubsets.map(({ name }) => ({ name }));
  // Most destinations have no source-scoped fields: one trafficPolicy for all their views, and no
  // per-view lookups (a destination federated to 99 meshes has 100 views).
  const scoped = input.state.scoped.size > 0;
  const everyonePolicy = trafficPolicyOf(everyone.value);
  // Remote rules without cluster-scoped fields are one draft per API version and namespace, shared
  // by every mesh that gets it.
  const shared: ObjectDraft[] = [];
  for (const view of views) {
    const clusterCell = scoped ? input.state.scoped.get(scopeKey({ cluster: view.cluster }))?.fields : undefined;
    const fields = clusterCell === undefined ? everyone.value : overlay(everyone.value, clusterCell.value);
    const trafficPolicy = clusterCell === undefined ? everyonePolicy : trafficPolicyOf(fields);
    const owners = [everyone, clusterCell];
    const subsets = view.federated ? demanded : input.subsets;
    const base: ViewBase = { view, fields, subsets: subsets.length > 0 ? subsets : undefined, ownRule: true };
    const apiVersion = model.istioVersions(view.cluster).networking;
    const rule = (parents: Parent[]): ObjectDraft => ({
      apiVersion,
      kind: "DestinationRule",
      name: view.name,
      namespace: view.namespace,
      spec: { host: view.host, trafficPolicy, subsets: base.subsets },
      parents,
    });
    if (!view.federated) {
      out.push({ cluster: view.cluster, draft: rule([{ kind: "Destination", name: input.state.destination.metadata.name }, ...policyParents(input, owners)]) });
    } else if (exported === undefined || (Object.keys(fields).length === 0 && demanded.length === 0)) {
      base.ownRule = false;
    } else {
      // It exists because these policies need more than the federation rule gives; like federated
      // VirtualServices it lists only them, so it goes exactly when the last of them does.
      let draft = clusterCell === undefined ? shared.find((d) => d.apiVersion === apiVersion && d.namespace === view.namespace) : undefined;
      if (draft === undefined) {
        draft = rule(policyParents(input, owners));
        if (clusterCell === undefined) shared.push(draft);
      }
      out.push({ cluster: view.cluster, draft });
    }
    if (scoped) out.push(...callerRules(base, input, model));
  }
  return out;
}

/**
 * In every mesh that receives federated hosts, one DestinationRule for all of them
 * (`*.<suffix>`): ISTIO_MUTUAL, so clients originate the mTLS whose SNI the remote east-west gateway
 * routes by (AUTO_PASSTHROUGH). Hosts with their own rule (above) override it.
 */
export function federationDestinationRule(mesh: Mesh, virtualMesh: VirtualMesh, suffix: string, model: Model): ObjectDraft {
  return {
    apiVersion: model.istioVersions(mesh.spec.cluster).networking,
    kind: "DestinationRule",
    name: generatedName(virtualMesh.metadata.name, "federation"),
    namespace: mesh.spec.namespace,
    spec: { host: `*.${suffix}`, trafficPolicy: { tls: { mode: "ISTIO_MUTUAL" } } },
    parents: [{ kind: "VirtualMesh", name: virtualMesh.metadata.name }],
  };
}

/**
 * On the destination's own cluster, the DestinationRule for its federated host, next to the local
 * ServiceEntry the east-west gateway routes SNI through (docs/resources.md#virtualmesh): same
 * subsets (with labels) and TLS as the service's own rule, visible only to the gateways.
 */
export function gatewayDestinationRule(input: DestinationRuleInput, exported: FederatedExport, model: Model, name: string, namespace: string): ObjectDraft {
  const tls = trafficPolicyOf(input.state.trafficPolicy.value).tls;
  return {
    apiVersion: model.istioVersions(exported.destination.spec.cluster).networking,
    kind: "DestinationRule",
    name,
    namespace,
    spec: {
      host: exported.host,
      exportTo: gatewayExportTo(exported, namespace),
      trafficPolicy: { tls },
      subsets: input.subsets.length > 0 ? input.subsets : undefined,
    },
    parents: [{ kind: "VirtualMesh", name: exported.virtualMesh.metadata.name }, ...policyParents(input, [input.state.trafficPolicy])],
  };
}
