import type { IdentitySelector, Workload } from "../../api/index";
import { sortedUnique } from "../compare";
import { type Model, refKey } from "../input/model";
import { trustDomainOf } from "../virtual-mesh/trust-domains";

/** Sources of an AuthorizationPolicy rule; both lists empty means the selectors matched nobody. */
export interface IstioSources {
  principals: string[];
  namespaces: string[];
}

/** Trust domains of the Istio meshes in `cluster` (several with revisions that differ), sorted. */
export function trustDomains(model: Model, cluster: string): string[] {
  return sortedUnique(model.meshesIn(cluster).flatMap((m) => (m.spec.type === "istio" ? [trustDomainOf(m)] : [])));
}

/**
 * AccessPolicy sources as Istio sees them (docs/resources.md#accesspolicy). No selectors: any
 * authenticated peer (`principals: ["*"]`). Service account refs: `<trustDomain>/ns/<ns>/sa/<sa>`
 * with the trust domain of each mesh in the account's cluster — of every registered cluster when
 * the ref names none (translation re-runs when clusters come and go, so later ones are included).
 * Identity matchers with clusters: principals with those clusters' trust domains and a `*` for what
 * is not pinned down, because only the trust domain tells clusters apart in a SPIFFE identity
 * (meshes sharing one trust domain cannot be told apart). Namespace-only matchers:
 * `source.namespaces`. An empty matcher: any authenticated peer.
 */
export function istioSources(selectors: readonly IdentitySelector[] | undefined, model: Model): IstioSources {
  if (selectors === undefined || selectors.length === 0) return { principals: ["*"], namespaces: [] };
  const principals: string[] = [];
  const namespaces: string[] = [];
  for (const selector of selectors) {
    for (const sa of selector.kubeServiceAccountRefs?.serviceAccounts ?? []) {
      const clusters = sa.cluster === undefined ? model.clusters : [sa.cluster];
      for (const td of clusters.flatMap((c) => trustDomains(model, c))) principals.push(`${td}/ns/${sa.namespace}/sa/${sa.name}`);
    }
    const m = selector.kubeIdentityMatcher;
    if (m === undefined) continue;
    if (m.clusters === undefined) {
      if (m.namespaces === undefined) principals.push("*");
      else namespaces.push(...m.namespaces);
      continue;
    }
    for (const td of m.clusters.flatMap((c) => trustDomains(model, c))) {
      if (m.namespaces === undefined) principals.push(`${td}/ns/*`);
      else for (const ns of m.namespaces) principals.push(`${td}/ns/${ns}/sa/*`);
    }
  }
  return { principals: sortedUnique(principals), namespaces: sortedUnique(namespaces) };
}

/**
 * Errors that make an AccessPolicy INVALID: service account refs in clusters that are not
 * registered or have no mesh (a typo there would otherwise silently authorise nobody). The account
 * itself is not checked: authorising it before its workloads are deployed is legitimate.
 */
export function identityErrors(selectors: readonly IdentitySelector[] | undefined, model: Model): string[] {
  const errors: string[] = [];
  for (const sa of (selectors ?? []).flatMap((s) => s.kubeServiceAccountRefs?.serviceAccounts ?? [])) {
    if (sa.cluster === undefined) continue;
    const ref = refKey({ cluster: sa.cluster, namespace: sa.namespace, name: sa.name });
    if (!model.clusters.includes(sa.cluster)) errors.push(`sourceSelector: service account ${ref}: cluster ${sa.cluster} is not registered`);
    else if (model.meshesIn(sa.cluster).length === 0) errors.push(`sourceSelector: service account ${ref}: cluster ${sa.cluster} has no mesh`);
  }
  return errors;
}

/** Whether an AuthorizationPolicy principal (exact, `*`, or `*` at one end as Istio reads it) matches `principal`. */
function principalMatches(pattern: string, principal: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith("*")) return principal.startsWith(pattern.slice(0, -1));
  if (pattern.startsWith("*")) return principal.endsWith(pattern.slice(1));
  return pattern === principal;
}

/**
 * The workloads of the Istio meshes `meshes` whose calls a rule of `sources` admits, by their
 * SPIFFE identity `<trustDomain>/ns/<namespace>/sa/<serviceAccount>` (their mesh's trust domain)
 * or their namespace, as Istio matches `principals` and `namespaces`; `keep` filters them first.
 * In the model's order.
 */
export function admittedWorkloads(sources: IstioSources, meshes: ReadonlySet<string>, model: Model, keep: (w: Workload) => boolean): Workload[] {
  const out: Workload[] = [];
  for (const w of model.workloads.values()) {
    const mesh = model.meshes.get(w.spec.mesh);
    if (mesh?.spec.type !== "istio" || !meshes.has(mesh.metadata.name) || !keep(w)) continue;
    const principal = `${trustDomainOf(mesh)}/ns/${w.spec.namespace}/sa/${w.spec.serviceAccount}`;
    if (sources.namespaces.includes(w.spec.namespace) || sources.principals.some((p) => principalMatches(p, principal))) out.push(w);
  }
  return out;
}
