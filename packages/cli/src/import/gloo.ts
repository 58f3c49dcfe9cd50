import { DOCUMENT_SCHEMAS, type UserDocument, type UserKind, discoveredName, dnsSafeName, fieldErrors } from "@meshplane/core";
import { parseAllDocuments, stringify } from "yaml";

// Converts Gloo Mesh v1 (networking.mesh.gloo.solo.io/v1) VirtualMesh, TrafficPolicy and
// AccessPolicy YAML into meshplane documents. Every Gloo field is either converted, ignored on
// purpose (server-set metadata, status) or listed in `dropped` with what to do instead; the
// field-by-field table is docs/import-gloo.md.

export const GLOO_API_VERSION = "networking.mesh.gloo.solo.io/v1";

export type MeshplaneDocument = UserDocument;
/** A Gloo field that was not carried over. `path` is the Gloo path, from the document root. */
export interface Dropped {
  document: string;
  path: string;
  reason: string;
}
/** A document that was not converted at all. */
export interface ImportError {
  document: string;
  message: string;
}
export interface GlooImport {
  documents: MeshplaneDocument[];
  dropped: Dropped[];
  errors: ImportError[];
}

/**
 * Converts the multi-document YAML `text`. Pure: the same text gives the same result. A document that
 * is not Gloo Mesh v1 networking YAML, does not parse, or would not be a valid meshplane resource is
 * an entry in `errors` (the fields it could not carry over are in `dropped` all the same) and the rest
 * are still converted; `kind: List` documents are read item by item.
 * Names follow the rule in docs/import-gloo.md: the Gloo name made a DNS label, and when two
 * documents of one kind share it, each becomes `<name>-<namespace>`.
 */
export function importGloo(text: string): GlooImport {
  const converted: Converted[] = [];
  const failures: Failure[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    const where = `documents[${i}]`;
    const problem = doc.errors[0];
    if (problem) {
      failures.push({ document: where, message: `not valid YAML: ${problem.message.split("\n")[0]}`, dropped: [] });
      return;
    }
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return; // an empty document, e.g. after a trailing ---
    const items = isRecord(value) && typeof value.kind === "string" && value.kind.endsWith("List") && Array.isArray(value.items)
      ? value.items.map((item, j) => ({ item: item as unknown, where: `${where}.items[${j}]` }))
      : [{ item: value, where }];
    for (const { item, where: at } of items) {
      const result = convertDocument(item, at);
      if ("message" in result) failures.push(result);
      else converted.push(result);
    }
  });
  return finish(assignNames(converted, failures), failures);
}

/** The documents as YAML, one after another, ready for `meshplane apply -f`. */
export function formatDocuments(documents: readonly MeshplaneDocument[]): string {
  return documents.map((d) => `---\n${stringify(d, { aliasDuplicateObjects: false, lineWidth: 0, version: "1.1" })}`).join("");
}

/**
 * What a user reads after an import: one line per dropped field of the converted documents, then
 * each error, preceded by the fields its document could not carry over (often what caused it).
 */
export function formatReport(result: Pick<GlooImport, "dropped" | "errors">): string {
  const failed = new Set(result.errors.map((e) => e.document));
  const lines = [
    ...result.dropped.filter((d) => !failed.has(d.document)).map(droppedLine),
    ...result.errors.flatMap((e) => [...result.dropped.filter((d) => d.document === e.document).map(droppedLine), `${e.document}: error: ${e.message}`]),
  ];
  return lines.map((line) => `${line}\n`).join("");
}

function droppedLine(d: Dropped): string {
  return `${d.document}: ${d.path}: ${d.reason}`;
}

// ---------------------------------------------------------------------------------------------
// One document

type Json = Record<string, unknown>;

interface Converted {
  kind: UserKind;
  name: string;
  namespace: string | undefined;
  where: string;
  labels: unknown;
  spec: Json;
  dropped: { path: string; reason: string }[];
}

/** A document that ends as an error, with the fields it could not carry over until then: both are reported. */
interface Failure extends ImportError {
  dropped: { path: string; reason: string }[];
}

/** A Gloo value of the wrong shape (a list where a mapping belongs): the document is not converted. */
class ShapeError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a converter reads from one Gloo object: `keep` it converts (or ignores on purpose), `drop` it lists with a reason. */
interface Shape {
  keep: readonly string[];
  drop?: Readonly<Record<string, string>>;
}

const UNKNOWN_FIELD = "not a Gloo Mesh v1 field that meshplane knows; not converted";

/** Whether the Gloo path `path` is `parent` or a field or item inside it. */
function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
}

/** The dropped fields of one document, and the readers that record them. */
class Conversion {
  readonly dropped: { path: string; reason: string }[] = [];

  drop(path: string, reason: string): void {
    this.dropped.push({ path, reason });
  }

  /**
   * ` after leaving out …`, naming the dropped fields at or below `path` (a field below another
   * named one is not repeated), for the error they caused; "" when nothing there was dropped.
   */
  leftOut(path: string): string {
    const paths = this.dropped.map((d) => d.path).filter((p) => within(p, path));
    const outermost = paths.filter((p) => !paths.some((q) => q !== p && within(p, q)));
    return outermost.length === 0 ? "" : ` after leaving out ${outermost.join(", ")}`;
  }

  /**
   * `value` as a mapping of the fields `shape` names; fields outside `shape.keep` are reported as
   * dropped, with their reason or as unknown, and unknown ones are not returned.
   */
  record(value: unknown, path: string, shape: Shape): Json {
    if (!isRecord(value)) throw new ShapeError(path, "must be a mapping");
    const known: Json = {};
    for (const [key, field] of Object.entries(value)) {
      const reason = shape.keep.includes(key) ? undefined : (shape.drop?.[key] ?? UNKNOWN_FIELD);
      if (reason !== undefined) this.drop(`${path}.${key}`, reason);
      if (reason !== UNKNOWN_FIELD) known[key] = field;
    }
    return known;
  }

  list(value: unknown, path: string): unknown[] {
    if (!Array.isArray(value)) throw new ShapeError(path, "must be a list");
    return value;
  }
}

const KINDS: Record<string, (spec: unknown, c: Conversion) => Json> = {
  VirtualMesh: virtualMeshSpec,
  TrafficPolicy: trafficPolicySpec,
  AccessPolicy: accessPolicySpec,
};

// Server-set metadata: not intent, so not worth a line in the report.
const SERVER_METADATA = [
  "uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
  "managedFields", "selfLink", "finalizers", "ownerReferences",
];

function convertDocument(value: unknown, where: string): Converted | Failure {
  const { apiVersion, kind } = isRecord(value) ? value : {};
  if (!isRecord(value) || typeof apiVersion !== "string" || typeof kind !== "string") {
    return { document: where, message: "not a Kubernetes object (expected a mapping with apiVersion and kind)", dropped: [] };
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === "string" ? metadata.name : undefined;
  const namespace = typeof metadata.namespace === "string" ? metadata.namespace : undefined;
  const document = describe(kind, name, namespace, where);
  if (apiVersion !== GLOO_API_VERSION) {
    return { document, message: `not Gloo Mesh v1 networking YAML (apiVersion ${apiVersion}, kind ${kind}); only ${GLOO_API_VERSION} is imported`, dropped: [] };
  }
  const convertSpec = KINDS[kind];
  if (!convertSpec) {
    return { document, message: `kind ${kind} has no meshplane equivalent; only VirtualMesh, TrafficPolicy and AccessPolicy are imported`, dropped: [] };
  }
  if (name === undefined) return { document, message: "metadata.name is missing", dropped: [] };
  const c = new Conversion();
  try {
    c.record(value, "(root)", { keep: ["apiVersion", "kind", "metadata", "spec", "status"] });
    c.record(value.metadata, "metadata", {
      keep: ["name", "namespace", "labels", ...SERVER_METADATA],
      drop: { annotations: "not carried over (mostly tool bookkeeping such as kubectl's last-applied-configuration); add the ones you need under metadata.annotations" },
    });
    const spec = convertSpec(value.spec ?? {}, c);
    return { kind: kind as UserKind, name, namespace, where, labels: metadata.labels, spec, dropped: rooted(c.dropped) };
  } catch (error) {
    if (error instanceof ShapeError) return { document, message: `${error.path}: ${error.message}`, dropped: rooted(c.dropped) };
    throw error;
  }
}

/** Dropped paths as the report prints them: top-level fields without the `(root).` the readers use. */
function rooted(dropped: readonly { path: string; reason: string }[]): { path: string; reason: string }[] {
  return dropped.map((d) => ({ ...d, path: d.path.replace(/^\(root\)\./, "") }));
}

function describe(kind: string | undefined, name: string | undefined, namespace: string | undefined, where: string): string {
  if (kind === undefined || name === undefined) return where;
  return `${kind} ${namespace === undefined ? "" : `${namespace}/`}${name} (${where})`;
}

// ---------------------------------------------------------------------------------------------
// Names, validation, output

interface Named extends Converted {
  finalName: string;
}

/**
 * The naming rule: the Gloo name made a DNS label; when documents of one kind from different
 * namespaces share it, every one of them becomes `<name>-<namespace>` (so no document silently keeps
 * the plain name because it came first). A true duplicate (same kind, namespace and name), or a
 * suffixed name that is still taken, is an error on the later document.
 */
function assignNames(converted: Converted[], failures: Failure[]): Named[] {
  const byBase = new Map<string, Converted[]>();
  for (const doc of converted) {
    const key = `${doc.kind}/${dnsSafeName(doc.name)}`;
    byBase.set(key, [...(byBase.get(key) ?? []), doc]);
  }
  const taken = new Map<string, Converted>();
  const named: Named[] = [];
  for (const doc of converted) {
    const base = dnsSafeName(doc.name);
    const clash = (byBase.get(`${doc.kind}/${base}`) ?? []).some((other) => other.namespace !== doc.namespace);
    const finalName = clash ? dnsSafeName(`${doc.name}-${doc.namespace ?? "default"}`) : base;
    const first = taken.get(`${doc.kind}/${finalName}`);
    if (first) {
      const label = describe(doc.kind, doc.name, doc.namespace, doc.where);
      failures.push({ document: label, message: `meshplane name ${finalName} is already taken by ${describe(first.kind, first.name, first.namespace, first.where)}; rename one of them before importing`, dropped: doc.dropped });
      continue;
    }
    taken.set(`${doc.kind}/${finalName}`, doc);
    named.push({ ...doc, finalName });
  }
  return named;
}

/**
 * Validates each document against meshplane's own schema; one that fails is an error, not output.
 * The fields of a failed document that were not carried over are reported all the same.
 */
function finish(named: Named[], failures: Failure[]): GlooImport {
  const documents: MeshplaneDocument[] = [];
  const dropped: Dropped[] = [];
  for (const doc of named) {
    const label = describe(doc.kind, doc.name, doc.namespace, doc.where);
    const metadata = compact({ name: doc.finalName, labels: doc.labels });
    const result = DOCUMENT_SCHEMAS[doc.kind].safeParse({ apiVersion: "meshplane.dev/v1", kind: doc.kind, metadata, spec: doc.spec });
    if (!result.success) {
      const problems = fieldErrors(result.error).map((e) => `${e.path}: ${e.message}`);
      failures.push({ document: label, message: `the converted document is not a valid meshplane ${doc.kind}: ${problems.join("; ")}`, dropped: doc.dropped });
      continue;
    }
    documents.push(result.data);
    dropped.push(...doc.dropped.map((d) => ({ document: label, ...d })));
  }
  for (const f of failures) dropped.push(...f.dropped.map((d) => ({ document: f.document, ...d })));
  return { documents, dropped, errors: failures.map(({ document, message }) => ({ document, message })) };
}

// ---------------------------------------------------------------------------------------------
// Selectors (common.mesh.gloo.solo.io)

function destinationSelectors(value: unknown, path: string, c: Conversion): Json[] {
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

function workloadSelectors(value: unknown, path: string, c: Conversion): Json[] {
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
function identitySelectors(value: unknown, path: string, c: Conversion): Json[] | undefined {
  const input = c.list(value, path);
  const out: Json[] = [];
  let any = false;
  input.forEach((item, i) => {
    const at = `${path}[${i}]`;
    const s = c.record(item, at, { keep: ["kubeIdentityMatcher", "kubeServiceAccountRefs", "requestIdentityMatcher"] });
    if (s.requestIdentityMatcher !== undefined) {
      c.drop(`${at}.requestIdentityMatcher`, "meshplane matches mesh identities, not JWT request principals; enforce them with an Istio RequestAuthentication and AuthorizationPolicy of your own");
    }
    if (s.kubeServiceAccountRefs !== undefined) {
      if (s.kubeIdentityMatcher !== undefined) {
        c.drop(`${at}.kubeIdentityMatcher`, "set together with kubeServiceAccountRefs, which Gloo Mesh combines into one Istio source; only the service accounts are kept (the narrower reading) — add a separate selector if the namespaces or clusters should be allowed too");
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
function clusterRef(value: unknown, path: string, c: Conversion): Json {
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
function meshRefs(value: unknown, path: string, c: Conversion): Json[] {
  return c.list(value, path).map((item, i) => ({ name: meshName(c.record(item, `${path}[${i}]`, { keep: ["name", "namespace"] }).name) }));
}

/** Fails when dropping parts of a non-empty selector list left it empty, which would select everything. */
function keepNarrow(out: Json[], input: unknown, path: string, what: string, c: Conversion): Json[] {
  if (out.length === 0 && Array.isArray(input) && input.length > 0) {
    throw new ShapeError(path, `no selector is left${c.leftOut(path)}, and an empty list would select every ${what}; not imported`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Kinds

function trafficPolicySpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", {
    keep: ["sourceSelector", "destinationSelector", "httpRequestMatchers", "policy"],
    drop: { routeSelector: "selects Gloo Mesh Enterprise gateway routes (VirtualHosts, RouteTables); meshplane policies apply to mesh traffic only" },
  });
  const converted = compact({
    sourceSelector: spec.sourceSelector === undefined ? undefined : workloadSelectors(spec.sourceSelector, "spec.sourceSelector", c),
    destinationSelector: spec.destinationSelector === undefined ? undefined
      : keepNarrow(destinationSelectors(spec.destinationSelector, "spec.destinationSelector", c), spec.destinationSelector, "spec.destinationSelector", "destination", c),
    httpRequestMatchers: spec.httpRequestMatchers === undefined ? undefined
      : c.list(spec.httpRequestMatchers, "spec.httpRequestMatchers").map((m, i) => httpMatcher(m, `spec.httpRequestMatchers[${i}]`, c)),
    policy: trafficPolicyFeatures(spec.policy ?? {}, c),
  });
  if (Object.keys(converted.policy as Json).length === 0) {
    throw new ShapeError("spec.policy", `nothing meshplane can apply is left in the policy${c.leftOut("spec.policy")}; not imported`);
  }
  return converted;
}

function accessPolicySpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", { keep: ["sourceSelector", "destinationSelector", "allowedPaths", "allowedMethods", "allowedPorts"] });
  return compact({
    sourceSelector: spec.sourceSelector === undefined ? undefined : identitySelectors(spec.sourceSelector, "spec.sourceSelector", c),
    destinationSelector: spec.destinationSelector === undefined ? undefined
      : keepNarrow(destinationSelectors(spec.destinationSelector, "spec.destinationSelector", c), spec.destinationSelector, "spec.destinationSelector", "destination", c),
    allowedPaths: spec.allowedPaths,
    allowedMethods: spec.allowedMethods,
    allowedPorts: spec.allowedPorts,
  });
}

function virtualMeshSpec(value: unknown, c: Conversion): Json {
  const spec = c.record(value, "spec", { keep: ["meshes", "mtlsConfig", "federation", "globalAccessPolicy"] });
  const mtlsConfig = spec.mtlsConfig === undefined ? undefined : mtls(spec.mtlsConfig, "spec.mtlsConfig", c);
  const meshes = meshRefs(spec.meshes ?? [], "spec.meshes", c);
  if (meshes.length > 1 && federatesByVersion(spec)) c.drop("spec.federation", FEDERATION_BY_VERSION);
  return compact({
    meshes,
    mtlsConfig: mtlsConfig && Object.keys(mtlsConfig).length > 0 ? mtlsConfig : undefined,
    federation: spec.federation === undefined ? undefined : federation(spec.federation, "spec.federation", c),
    // MESH_DEFAULT leaves Istio's default (allow), which is what omitting the field means here.
    globalAccessPolicy: spec.globalAccessPolicy === "MESH_DEFAULT" ? undefined : spec.globalAccessPolicy,
  });
}

// ---------------------------------------------------------------------------------------------
// TrafficPolicy: matchers and policy features

function httpMatcher(value: unknown, path: string, c: Conversion): Json {
  const m = c.record(value, path, {
    keep: ["uri", "headers", "queryParameters", "method"],
    drop: { name: "meshplane routes are not named (Gloo Mesh only wrote the name into access logs)" },
  });
  const list = (field: string, keep: string[]) =>
    m[field] === undefined ? undefined : c.list(m[field], `${path}.${field}`).map((h, i) => c.record(h, `${path}.${field}[${i}]`, { keep }));
  return compact({
    uri: m.uri === undefined ? undefined : stringMatch(m.uri, `${path}.uri`, c, true),
    method: m.method,
    headers: list("headers", ["name", "value", "regex", "invertMatch"]),
    queryParameters: list("queryParameters", ["name", "value", "regex"]),
  });
}

/**
 * A Gloo StringMatch. meshplane has no `suffix`, and CORS origins have no `ignoreCase`: both become
 * an RE2 regex with the same meaning (Envoy matches the whole string, hence the leading `.*`).
 */
function stringMatch(value: unknown, path: string, c: Conversion, ignoreCaseField: boolean): Json {
  const m = c.record(value, path, { keep: ["exact", "prefix", "regex", "suffix", "ignoreCase"] });
  const ignoreCase = m.ignoreCase === true;
  if (m.regex !== undefined) {
    if (ignoreCase) c.drop(`${path}.ignoreCase`, "has no effect on a regex in Gloo Mesh either; write (?i) in the expression for a case-insensitive match");
    return { regex: m.regex };
  }
  const flag = ignoreCase ? "(?i)" : "";
  if (m.suffix !== undefined) return { regex: `${flag}.*${escapeRegex(String(m.suffix))}` };
  if (ignoreCase && !ignoreCaseField) {
    if (m.exact !== undefined) return { regex: `${flag}${escapeRegex(String(m.exact))}` };
    if (m.prefix !== undefined) return { regex: `${flag}${escapeRegex(String(m.prefix))}.*` };
  }
  return compact({ exact: m.exact, prefix: m.prefix, ignoreCase: ignoreCase && ignoreCaseField ? true : undefined });
}

const POLICY_DROPS = {
  csrf: "meshplane has no CSRF filter; configure Envoy's CSRF filter with an Istio EnvoyFilter of your own",
  rateLimit: "meshplane has no rate limiting; configure Envoy's rate-limit filter with an Istio EnvoyFilter of your own",
  extauth: "meshplane has no external authorization; use Istio's extensionProviders and a CUSTOM AuthorizationPolicy of your own",
};

function trafficPolicyFeatures(value: unknown, c: Conversion): Json {
  const path = "spec.policy";
  const p = c.record(value, path, {
    keep: ["trafficShift", "faultInjection", "requestTimeout", "retries", "corsPolicy", "mirror", "headerManipulation", "outlierDetection", "mtls"],
    drop: POLICY_DROPS,
  });
  const at = (field: string) => `${path}.${field}`;
  const pick = (field: string, keep: string[]) => (p[field] === undefined ? undefined : c.record(p[field], at(field), { keep }));
  const fault = pick("faultInjection", ["fixedDelay", "abort", "percentage"]);
  const retries = pick("retries", ["attempts", "perTryTimeout"]);
  const mirror = pick("mirror", ["kubeService", "percentage", "port"]);
  const mtlsPolicy = pick("mtls", ["istio"]);
  const istio = mtlsPolicy?.istio === undefined ? undefined : c.record(mtlsPolicy.istio, `${at("mtls")}.istio`, { keep: ["tlsMode"] });
  return compact({
    trafficShift: p.trafficShift === undefined ? undefined : trafficShift(p.trafficShift, at("trafficShift"), c),
    faultInjection: fault && compact({
      fixedDelay: fault.fixedDelay,
      abort: fault.abort === undefined ? undefined : { httpStatus: c.record(fault.abort, `${at("faultInjection")}.abort`, { keep: ["httpStatus"] }).httpStatus },
      percentage: fault.percentage ?? 100, // Gloo Mesh: "if omitted all requests will be faulted"
    }),
    requestTimeout: p.requestTimeout,
    // Omitted attempts are proto3's 0 in Gloo Mesh too.
    retries: retries && compact({ attempts: retries.attempts ?? 0, perTryTimeout: retries.perTryTimeout }),
    corsPolicy: p.corsPolicy === undefined ? undefined : corsPolicy(p.corsPolicy, at("corsPolicy"), c),
    mirror: mirror && compact({
      kubeService: mirror.kubeService === undefined ? undefined : clusterRef(mirror.kubeService, `${at("mirror")}.kubeService`, c),
      percentage: mirror.percentage,
      port: mirror.port,
    }),
    headerManipulation: pick("headerManipulation", ["appendRequestHeaders", "removeRequestHeaders", "appendResponseHeaders", "removeResponseHeaders"]),
    outlierDetection: pick("outlierDetection", ["consecutiveErrors", "interval", "baseEjectionTime", "maxEjectionPercent"]),
    // tlsMode is a proto3 enum whose zero value is DISABLE: an empty `istio: {}` meant DISABLE.
    mtls: istio && { istio: { tlsMode: istio.tlsMode ?? "DISABLE" } },
  });
}

function trafficShift(value: unknown, path: string, c: Conversion): Json | undefined {
  const shift = c.record(value, path, { keep: ["destinations"] });
  const input = c.list(shift.destinations ?? [], `${path}.destinations`);
  const elsewhere = "; until then, the remaining destinations take its share of the traffic";
  const destinations: Json[] = [];
  input.forEach((item, i) => {
    const at = `${path}.destinations[${i}]`;
    const d = c.record(item, at, {
      keep: ["weight", "kubeService"],
      drop: {
        virtualDestination: `meshplane has no VirtualDestination; shift to the kubeService of each cluster instead${elsewhere}`,
        staticDestination: `meshplane routes only to Kubernetes Services in registered clusters${elsewhere}`,
        clusterHeader: `meshplane cannot route by a header naming an Envoy cluster${elsewhere}`,
        options: "per-destination options are not supported; meshplane's headerManipulation applies to the whole route",
      },
    });
    if (d.kubeService === undefined) return;
    const k = c.record(d.kubeService, `${at}.kubeService`, { keep: ["name", "namespace", "clusterName", "subset", "port"] });
    // A lone destination needs no weight in Gloo Mesh; several without one get proto3's 0.
    const weight = d.weight ?? (input.length === 1 ? 100 : 0);
    destinations.push({ kubeService: compact({ cluster: k.clusterName, namespace: k.namespace, name: k.name, subset: k.subset, port: k.port }), weight });
  });
  if (destinations.length > 0) return { destinations };
  c.drop(path, "left out: none of its destinations can be carried over");
  return undefined;
}

function corsPolicy(value: unknown, path: string, c: Conversion): Json {
  const cors = c.record(value, path, { keep: ["allowOrigins", "allowMethods", "allowHeaders", "exposeHeaders", "maxAge", "allowCredentials"] });
  return compact({
    allowOrigins: cors.allowOrigins === undefined ? undefined
      : c.list(cors.allowOrigins, `${path}.allowOrigins`).map((o, i) => stringMatch(o, `${path}.allowOrigins[${i}]`, c, false)),
    allowMethods: cors.allowMethods,
    allowHeaders: cors.allowHeaders,
    exposeHeaders: cors.exposeHeaders,
    maxAge: cors.maxAge,
    allowCredentials: cors.allowCredentials,
  });
}

// ---------------------------------------------------------------------------------------------
// VirtualMesh: trust and federation

// rsaKeySizeBytes 0 is proto3's unset: Gloo Mesh's default, 4096 ("Defaults to 4096", CommonCertOptions).
const KEY_ALGORITHMS: Record<string, string> = { "0": "RSA_4096", "2048": "RSA_2048", "4096": "RSA_4096" };
/** The key of a root Gloo Mesh generates when no size is given; meshplane's own default (ECDSA P-256) would change it. */
const GLOO_ROOT_KEY = "RSA_4096";

function mtls(value: unknown, path: string, c: Conversion): Json {
  const m = c.record(value, path, {
    keep: ["shared", "autoRestartPods", "rotationStrategy"],
    drop: {
      limited: "limited trust is not supported by meshplane (nor implemented in Gloo Mesh v1); use shared trust",
      rotationVerificationMethod: "meshplane rotates roots in phases (both roots trusted, then intermediates re-issued, then the old root dropped) without a manual verification step",
    },
  });
  if (m.rotationStrategy !== undefined && m.rotationStrategy !== "MULTI_ROOT") {
    c.drop(`${path}.rotationStrategy`, "meshplane always rotates roots in phases, as MULTI_ROOT does; a rotation without them is not offered");
  }
  return compact({ shared: m.shared === undefined ? undefined : sharedTrust(m.shared, `${path}.shared`, c), autoRestartPods: m.autoRestartPods });
}

// Both Gloo ways of bringing your own CA become meshplane's `external` root, whose key stays with you.
const AFTER_APPLY = "after applying, sign the VirtualMesh's CSR (GET /v1/virtualmeshes/<name>/ca/csr) and upload the chain (PUT /v1/virtualmeshes/<name>/ca/certificate)";
const CA_DROPS = {
  secret: `meshplane never holds your root key: imported as rootCertificateAuthority.external; ${AFTER_APPLY} with the CA in that Secret`,
  intermediateCertificateAuthority: `meshplane issues intermediates itself: imported as rootCertificateAuthority.external; ${AFTER_APPLY} with your Vault CA`,
};

function sharedTrust(value: unknown, path: string, c: Conversion): Json {
  const shared = c.record(value, path, {
    keep: ["rootCertificateAuthority", "intermediateCertOptions"],
    drop: { intermediateCertificateAuthority: CA_DROPS.intermediateCertificateAuthority },
  });
  let root: Json | undefined;
  if (shared.rootCertificateAuthority !== undefined) {
    const at = `${path}.rootCertificateAuthority`;
    const ca = c.record(shared.rootCertificateAuthority, at, { keep: ["generated"], drop: { secret: CA_DROPS.secret } });
    if (ca.generated !== undefined) root = { generated: certOptions(ca.generated, `${at}.generated`, c, "root") };
    else if (ca.secret !== undefined) root = { external: {} };
  }
  if (root === undefined && shared.intermediateCertificateAuthority !== undefined) root = { external: {} };
  // No CA named: Gloo Mesh generates a root with its defaults, so its key stays RSA 4096 here too.
  if (root === undefined) root = { generated: { keyAlgorithm: GLOO_ROOT_KEY } };
  return compact({
    rootCertificateAuthority: root,
    intermediateCertOptions: shared.intermediateCertOptions === undefined ? undefined : certOptions(shared.intermediateCertOptions, `${path}.intermediateCertOptions`, c, "intermediate"),
  });
}

/** Gloo CommonCertOptions, for the generated root or the intermediates. */
function certOptions(value: unknown, path: string, c: Conversion, role: "root" | "intermediate"): Json {
  const o = c.record(value, path, {
    keep: role === "root" ? ["ttlDays", "rsaKeySizeBytes", "orgName"] : ["ttlDays", "secretRotationGracePeriodRatio"],
    drop: role === "root"
      ? { secretRotationGracePeriodRatio: "meshplane rotates the root on its own phased schedule" }
      : {
          rsaKeySizeBytes: "intermediate keys are made in each cluster by the agent; meshplane chooses their type",
          orgName: "meshplane sets the intermediate certificate's subject",
        },
  });
  if (role === "intermediate") {
    // Gloo refreshes at `ratio` of the lifetime before expiry; meshplane counts days.
    const ratio = typeof o.secretRotationGracePeriodRatio === "number" ? o.secretRotationGracePeriodRatio : undefined;
    const ttl = typeof o.ttlDays === "number" ? o.ttlDays : 365;
    return compact({ ttlDays: o.ttlDays, rotateBeforeDays: ratio === undefined ? undefined : Math.round(ttl * ratio) });
  }
  // Named "bytes" in Gloo Mesh, but the documented default (4096) is a key size in bits.
  const size = o.rsaKeySizeBytes === undefined ? undefined : String(o.rsaKeySizeBytes);
  const keyAlgorithm = size === undefined ? GLOO_ROOT_KEY : KEY_ALGORITHMS[size];
  if (keyAlgorithm === undefined) {
    c.drop(`${path}.rsaKeySizeBytes`, "meshplane generates RSA 2048, RSA 4096 or ECDSA P-256 root keys; imported without a keyAlgorithm, so the root is ECDSA P-256 (meshplane's default): set keyAlgorithm to choose another");
  }
  return compact({ ttlDays: o.ttlDays, keyAlgorithm, orgName: o.orgName });
}

/**
 * Whether the VirtualMesh leaves federation to the Gloo Mesh version: without `selectors` (or the
 * deprecated `permissive`), Gloo Mesh 1.0 federated every service of a VirtualMesh to its other
 * meshes and 1.1 federates none. Fields that only 1.1 and later have settle which one was meant.
 */
function federatesByVersion(spec: Json): boolean {
  const f = isRecord(spec.federation) ? spec.federation : {};
  const m = isRecord(spec.mtlsConfig) ? spec.mtlsConfig : {};
  if (f.selectors !== undefined || f.permissive !== undefined) return false;
  return !SINCE_GLOO_1_1.federation.some((k) => f[k] !== undefined) && !SINCE_GLOO_1_1.mtlsConfig.some((k) => m[k] !== undefined);
}
const SINCE_GLOO_1_1 = {
  federation: ["ingressGatewaySelectors", "eastWestIngressGatewaySelectors", "tcpKeepalive"],
  mtlsConfig: ["rotationStrategy", "rotationVerificationMethod"],
};
const FEDERATION_BY_VERSION =
  "Gloo Mesh 1.1 and later federate nothing without selectors, and so does this import; Gloo Mesh 1.0 federated every service to every other mesh of the VirtualMesh: if this VirtualMesh was written for 1.0, add federation.selectors: [{}]";

function federation(value: unknown, path: string, c: Conversion): Json {
  const f = c.record(value, path, {
    keep: ["selectors", "permissive", "flatNetwork", "hostnameSuffix", "ingressGatewaySelectors", "eastWestIngressGatewaySelectors"],
    drop: { tcpKeepalive: "meshplane does not set TCP keepalive on federated traffic; set it with a DestinationRule of your own" },
  });
  if (f.flatNetwork === true) {
    c.drop(`${path}.flatNetwork`, "meshplane federates through east-west gateways only; a flat network is not supported");
  }
  let selectors: Json[] | undefined;
  if (f.selectors !== undefined) {
    selectors = c.list(f.selectors, `${path}.selectors`).map((item, i) => {
      const at = `${path}.selectors[${i}]`;
      const s = c.record(item, at, { keep: ["destinationSelectors", "meshes"] });
      const destinations = s.destinationSelectors === undefined ? undefined : destinationSelectors(s.destinationSelectors, `${at}.destinationSelectors`, c);
      return compact({
        destinationSelectors: destinations && keepNarrow(destinations, s.destinationSelectors, `${at}.destinationSelectors`, "destination", c),
        meshes: s.meshes === undefined ? undefined : meshRefs(s.meshes, `${at}.meshes`, c),
      });
    });
  } else if (f.permissive !== undefined) {
    selectors = [{}]; // the deprecated permissive mode: every destination to every mesh
  }
  const eastWestGateways = [
    ...gateways(f.eastWestIngressGatewaySelectors, `${path}.eastWestIngressGatewaySelectors`, c),
    ...gateways(f.ingressGatewaySelectors, `${path}.ingressGatewaySelectors`, c),
  ];
  return compact({ selectors, hostnameSuffix: f.hostnameSuffix, eastWestGateways: eastWestGateways.length > 0 ? eastWestGateways : undefined });
}

/**
 * Gloo's gateway selectors — `ingressGatewaySelectors {destinationSelectors, portName}`, and Gloo Mesh
 * 1.1's `eastWestIngressGatewaySelectors`, whose port is `gatewayTlsPortName` — one meshplane
 * east-west gateway entry per destination selector.
 */
function gateways(value: unknown, path: string, c: Conversion): Json[] {
  if (value === undefined) return [];
  const out: Json[] = [];
  c.list(value, path).forEach((item, i) => {
    const at = `${path}[${i}]`;
    const g = c.record(item, at, {
      keep: ["destinationSelectors", "portName", "gatewayTlsPortName"],
      drop: { meshes: "meshplane applies an east-west gateway entry to every mesh of the VirtualMesh; to keep this one to those meshes, add their clusters to its kubeServiceMatcher (clusters) or name the gateway Services in kubeServiceRefs" },
    });
    const port = g.gatewayTlsPortName === undefined ? "portName" : "gatewayTlsPortName";
    const portName = g[port];
    if (port === "gatewayTlsPortName" && g.portName !== undefined) {
      c.drop(`${at}.portName`, "set together with gatewayTlsPortName, which is the port name carried over; no Gloo Mesh version had both");
    }
    const selectors = destinationSelectors(g.destinationSelectors ?? [], `${at}.destinationSelectors`, c);
    if (selectors.length === 0 && portName !== undefined && portName !== "tls") {
      c.drop(`${at}.${port}`, "without destinationSelectors meshplane uses its default gateways and their port named tls; add a destinationSelector to use another port");
    }
    for (const destinationSelector of selectors) out.push(compact({ destinationSelector, portName }));
  });
  return out;
}

// ---------------------------------------------------------------------------------------------

function isRecord(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `object` without its undefined fields (meshplane's strict schemas have no use for them). */
function compact(object: Json): Json {
  return Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
}

function escapeRegex(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
}
