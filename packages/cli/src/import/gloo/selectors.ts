/** Selectors (common.mesh.gloo.solo.io): destinations, workloads, identities, cluster and mesh references. */
import { discoveredName } from "@meshplane/core";
import { type Conversion, type Json, ShapeError, compact } from "./conversion";

/** Gloo destination selectors → meshplane's; a selector with both matcher and refs becomes two (ORed, as in Gloo). */
export function destinationSelectors(value: unknown, path: string, c: Conversion): Json[] {
  const out: Json[] = [];
  c.list(value, path).forEach((item, i) => {
    const at = `${path}[${i}]`;
    const s = c.record(item, at, { keep: ["kubeServiceMatcher", "kubeServiceRefs"] });
    // Gloo Mesh matches a selector that sets both if either matches: two selectors, ORed, say the same.
    if (s.kubeServiceMatcher !== undefined) out.push({ kubeServiceMatcher: matcher(s.kubeServiceMatcher, `${at}.kubeServiceMatcher`, c, true) });
    if (s.kubeServiceRefs !== undefined) {
      const refs = c.record(s.kubeServiceRefs, `${at}.kubeServiceRefs`, { keep: ["services"] });
      const services = c.list(refs.services ?? [], `${at}.kubeServiceRefs.services`);
      out.push({ kubeServiceRefs: { services: services.map((r, j) => clusterRef(r, `${at}.kubeServiceRefs.services[${j}]`, c)) } });
    }
    if (s.kubeServiceMatcher === undefined && s.kubeServiceRefs === undefined) {
      c.drop(at, "an empty selector matches no destination in Gloo Mesh; left out");
    }
  });
  return out;
}

/** Gloo workload selectors → meshplane's; an empty one still matches every workload. */
export function workloadSelectors(value: unknown, path: string, c: Conversion): Json[] {
  return c.list(value, path).map((item, i) => {
    const s = c.record(item, `${path}[${i}]`, { keep: ["kubeWorkloadMatcher"] });
    // An empty selector matches every workload in Gloo Mesh, as an empty matcher does here.
    return { kubeWorkloadMatcher: matcher(s.kubeWorkloadMatcher ?? {}, `${path}[${i}].kubeWorkloadMatcher`, c, true) };
  });
}

/**
 * Identity selectors, converted so that access never widens: a part that cannot be carried over is
 * left out (less is allowed), and a list left empty — which would mean "any source" — is an error.
 */
export function identitySelectors(value: unknown, path: string, c: Conversion): Json[] | undefined {
  const input = c.list(value, path);
  const out: Json[] = [];
  let any = false;
  input.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const s = c.record(item, at, { keep: ["kubeIdentityMatcher", "kubeServiceAccountRefs", "requestIdentityMatcher"] });
    if (s.requestIdentityMatcher !== undefined) {
      c.drop(
        `${at}.requestIdentityMatcher`,
        "meshplane matches mesh identities, not JWT request principals; enforce them with an Istio RequestAuthentication and AuthorizationPolicy of your own",
      );
    }
    if (s.kubeServiceAccountRefs !== undefined) {
      if (s.kubeIdentityMatcher !== undefined) {
        c.drop(
          `${at}.kubeIdentityMatcher`,
          "set together with kubeServiceAccountRefs, which Gloo Mesh combines into one Istio source; only the service accounts are kept (the narrower reading) — add a separate selector if the namespaces or clusters should be allowed too",
        );
      }
      out.push(...serviceAccountSelectors(s.kubeServiceAccountRefs, `${at}.kubeServiceAccountRefs`, c));
    } else if (s.kubeIdentityMatcher !== undefined) {
      out.push({ kubeIdentityMatcher: matcher(s.kubeIdentityMatcher, `${at}.kubeIdentityMatcher`, c, false) });
    } else if (s.requestIdentityMatcher === undefined) {
      any = true; // Gloo Mesh reads an empty selector as "any source"
    }
  });
  if (any) return undefined;
  if (input.length > 0 && out.length === 0) {
    throw new ShapeError(path, `no source selector is left${c.leftOut(path)}, and an empty list would allow any source; not imported`);
  }
  return out;
}

/** Service account refs; one without a name (any account in its namespace) becomes a namespace matcher. */
function serviceAccountSelectors(value: unknown, path: string, c: Conversion): Json[] {
  const refs = c.record(value, path, { keep: ["serviceAccounts"] });
  const accounts: Json[] = [];
  const namespaces: Json[] = [];
  c.list(refs.serviceAccounts ?? [], `${path}.serviceAccounts`).forEach((item, i) => {
    const at = `${path}.serviceAccounts[${i}]`;
    const ref = c.record(item, at, { keep: ["name", "namespace", "clusterName"] });
    const clusters = ref.clusterName === undefined ? undefined : [ref.clusterName];
    if (ref.namespace === undefined) c.drop(at, "meshplane needs a service account's namespace; add it, or use a kubeIdentityMatcher");
    else if (ref.name === undefined) namespaces.push({ kubeIdentityMatcher: compact({ namespaces: [ref.namespace], clusters }) });
    else accounts.push(compact({ cluster: ref.clusterName, namespace: ref.namespace, name: ref.name }));
  });
  return [...(accounts.length > 0 ? [{ kubeServiceAccountRefs: { serviceAccounts: accounts } }] : []), ...namespaces];
}

function matcher(value: unknown, path: string, c: Conversion, withLabels: boolean): Json {
  const m = c.record(value, path, { keep: withLabels ? ["labels", "namespaces", "clusters"] : ["namespaces", "clusters"] });
  return compact({ labels: withLabels ? m.labels : undefined, namespaces: m.namespaces, clusters: m.clusters });
}

/** skv2 ClusterObjectRef `{name, namespace, clusterName}` → meshplane `{cluster, namespace, name}`. */
export function clusterRef(value: unknown, path: string, c: Conversion): Json {
  const ref = c.record(value, path, { keep: ["name", "namespace", "clusterName"] });
  return compact({ cluster: ref.clusterName, namespace: ref.namespace, name: ref.name });
}

/**
 * Gloo Mesh names a mesh `<istiod>-<namespace>-<cluster>`, which cannot be read back in general;
 * istiod in `istio-system`, by far the common case, can. Such a name becomes meshplane's name for
 * the same mesh (docs/api.md, "Discovered names"); any other is kept, and the VirtualMesh's status
 * says if no mesh has it.
 */
const GLOO_MESH_NAME = /^(istiod(?:-[a-z0-9]+(?:-[a-z0-9]+)*?)?)-istio-system-([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)$/;
function meshName(gloo: unknown): unknown {
  const match = typeof gloo === "string" ? GLOO_MESH_NAME.exec(gloo) : null;
  return match === null ? gloo : discoveredName({ name: match[1] as string, namespace: "istio-system", cluster: match[2] as string });
}

/** skv2 ObjectRef to a Mesh: meshplane meshes are tenant-wide, so the Gloo namespace is not needed. */
export function meshRefs(value: unknown, path: string, c: Conversion): Json[] {
  return c.list(value, path).map((item, i) => ({ name: meshName(c.record(item, `${path}[${i}]`, { keep: ["name", "namespace"] }).name) }));
}

/** Fails when dropping parts of a non-empty selector list left it empty, which would select everything. */
export function keepNarrow(out: Json[], input: unknown, path: string, what: string, c: Conversion): Json[] {
  if (out.length === 0 && Array.isArray(input) && input.length > 0) {
    throw new ShapeError(path, `no selector is left${c.leftOut(path)}, and an empty list would select every ${what}; not imported`);
  }
  return out;
}
