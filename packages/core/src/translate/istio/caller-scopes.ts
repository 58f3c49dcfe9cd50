import type { WorkloadSelector } from "../../api/index";
import { compareStrings } from "../compare";
import type { Model } from "../input/model";
import { type Fields, OwnedFields } from "../policy/owned-fields";
import { ownValue, setOwn } from "../../own-keys";
import type { View } from "./hosts";

/**
 * The callers a DestinationRule setting is for (docs/translation.md, "Source-scoped DestinationRule
 * settings"). DestinationRules act on the client side, so a policy with a sourceSelector puts its
 * DestinationRule fields only where its callers are: every caller of one cluster (the view's own
 * rule there), every caller of one namespace (a rule in that namespace, exported to it alone), or
 * the callers with some labels in one namespace (a rule there with a `workloadSelector`). Narrower
 * scopes win over wider ones field by field, as a route for selected sources wins over the catch-all
 * route.
 */
export interface CallerScope {
  readonly cluster: string;
  readonly namespace?: string | undefined;
  /** Set only with `namespace`: a workloadSelector does not reach across namespaces. */
  readonly labels?: Readonly<Record<string, string>> | undefined;
}

/** The DestinationRule fields the policies of one scope set. */
export interface ScopedFields {
  readonly scope: CallerScope;
  readonly fields: OwnedFields;
}

export function scopeKey(scope: CallerScope): string {
  const labels = scope.labels === undefined ? null : Object.entries(scope.labels).sort(([a], [b]) => compareStrings(a, b));
  return JSON.stringify([scope.cluster, scope.namespace ?? null, labels]);
}

function describeLabels(labels: Readonly<Record<string, string>>): string {
  return `{${Object.entries(labels)
    .sort(([a], [b]) => compareStrings(a, b))
    .map(([k, v]) => `${k}=${v}`)
    .join(", ")}}`;
}

/** A scope in words, for errors. */
export function describeScope(scope: CallerScope): string {
  if (scope.namespace === undefined) return `callers in cluster ${scope.cluster}`;
  const labels = scope.labels === undefined ? "" : ` with labels ${describeLabels(scope.labels)}`;
  return `callers${labels} in namespace ${scope.namespace} of cluster ${scope.cluster}`;
}

/** True when some workload could carry both label sets: no key is required with two values. */
function labelsOverlap(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  return Object.entries(a).every(([key, value]) => ownValue(b, key) === undefined || ownValue(b, key) === value);
}

/** Namespaces of `view`'s mesh in which workloads match `labels` (and `namespaces`, when given). */
function callerNamespaces(model: Model, view: View, labels: Record<string, string> | undefined, namespaces: string[] | undefined): string[] {
  const index = model.workloadIndex;
  const found = new Set<string>();
  for (const i of index.positions({ labels, namespaces, clusters: [view.cluster] })) {
    const workload = index.items[i];
    if (workload !== undefined && workload.spec.mesh === view.mesh.metadata.name) found.add(workload.spec.namespace);
  }
  return [...found].sort(compareStrings);
}

/**
 * The caller scopes a policy's sourceSelector gives in `views` (where the destination is rendered),
 * and what cannot be scoped. A selector without namespaces or labels is every caller of its
 * clusters. Namespaces and labels are resolved against discovery: a rule goes only into namespaces
 * where the view's mesh has matching workloads (elsewhere there is nobody to apply it to, and the
 * namespace may not exist); workloads discovered later get it with the next translation. Every
 * caller of the namespace that holds the view's own DestinationRule cannot be scoped: a second
 * rule there without a workloadSelector would compete with the service's own rule, and Istio
 * picks one of them by creation time.
 */
export function callerScopes(
  sources: readonly WorkloadSelector[],
  views: readonly View[],
  model: Model,
  features: readonly string[],
): { scopes: CallerScope[]; errors: string[] } {
  const scopes = new Map<string, CallerScope>();
  const errors: string[] = [];
  const add = (scope: CallerScope) => scopes.set(scopeKey(scope), scope);
  for (const { kubeWorkloadMatcher: m } of sources) {
    const labels = m.labels !== undefined && Object.keys(m.labels).length > 0 ? m.labels : undefined;
    for (const view of views) {
      if (m.clusters !== undefined && !m.clusters.includes(view.cluster)) continue;
      if (labels === undefined && m.namespaces === undefined) {
        add({ cluster: view.cluster });
        continue;
      }
      if (labels === undefined && m.namespaces?.includes(view.namespace) === true) {
        errors.push(
          `sourceSelector: DestinationRule settings (${features.join(", ")}) cannot be limited to every caller in namespace ${view.namespace} of cluster ${view.cluster}, where the service's own DestinationRule lives (Istio would choose between two rules there by creation time); select those callers by labels as well`,
        );
      }
      for (const namespace of callerNamespaces(model, view, labels, m.namespaces)) {
        if (labels === undefined && namespace === view.namespace) continue;
        add({ cluster: view.cluster, namespace, labels });
      }
    }
  }
  return { scopes: [...scopes.values()], errors };
}

/**
 * Scopes of `incoming` that overlap a different labelled scope already set in the same namespace:
 * Istio gives a caller only one workload-selected DestinationRule (the oldest that matches), so a
 * caller matching both would get one policy's settings and silently not the other's.
 */
export function overlapErrors(incoming: readonly CallerScope[], existing: ReadonlyMap<string, ScopedFields>): string[] {
  const errors: string[] = [];
  for (const scope of incoming) {
    if (scope.labels === undefined) continue;
    const key = scopeKey(scope);
    for (const [otherKey, other] of existing) {
      const o = other.scope;
      if (otherKey === key || o.labels === undefined || o.cluster !== scope.cluster || o.namespace !== scope.namespace) continue;
      if (!labelsOverlap(scope.labels, o.labels)) continue;
      errors.push(
        `sourceSelector labels ${describeLabels(scope.labels)} overlap labels ${describeLabels(o.labels)} of ${owners(other.fields.parents)} for callers in namespace ${scope.namespace} of cluster ${scope.cluster}: Istio applies one workload-selected DestinationRule per caller, so a caller matching both would miss one policy's settings; use the same labels or labels no workload can carry together`,
      );
    }
  }
  return errors;
}

function owners(names: ReadonlySet<string>): string {
  return `${names.size === 1 ? "TrafficPolicy" : "TrafficPolicies"} ${[...names].join(", ")}`;
}

function isPlainObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `base` with every leaf of `over` written over it (objects merge member by member; lists replace). */
export function overlay(base: Fields, over: Fields | undefined): Fields {
  if (over === undefined) return base;
  const out: Fields = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const current = ownValue(out, key);
    setOwn(out, key, isPlainObject(value) && isPlainObject(current) ? overlay(current, value) : value);
  }
  return out;
}
