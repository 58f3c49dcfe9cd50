/**
 * The chart's custom resources on a real kube-apiserver (docs/gitops.md#the-custom-resources): every
 * example document the API takes is taken as a custom resource, unchanged; what the schema can say
 * is refused by the API server itself, naming the field; what only meshplane checks passes the API
 * server (the agent's status says why later). And the chart's RBAC lets the agent do exactly what
 * authoring needs (docs/agent.md#permissions-the-chart), asked of the API server's own authorizer.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import https from "node:https";
import { join, resolve } from "node:path";
import { API_VERSION, DOCUMENT_SCHEMAS, USER_KINDS, USER_KIND_NAMES, type UserKind } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";
import { type KubeObject, type LabCluster, serviceAccountIdentity, startCluster } from "../lab/cluster";
import { AGENT_NS, eventually, renderChart } from "./lab-agents";

const ROOT = resolve(import.meta.dirname, "../..");
const VALUES = { "controlPlane.url": "https://api.meshplane.example.com", "cluster.name": "east", "bootstrap.token": "mpb_example" };
const JWKS = { "trust.jwks": JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" }] }) };
const NS = "shop";
/** Two agents' identities: the chart with `authoring.namespaces: [shop]`, and (another release namespace) with every namespace. */
const NAMESPACED_TOKEN = `authoring-ns-${Math.random().toString(36).slice(2)}`;
const EVERYWHERE_NS = "agent-everywhere";
const EVERYWHERE_TOKEN = `authoring-all-${Math.random().toString(36).slice(2)}`;

type Doc = {
  apiVersion: string;
  kind: UserKind;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: unknown;
};
type Obj = { kind: string; metadata: { name: string; namespace?: string }; subjects?: { namespace: string }[] };

const plural = (kind: UserKind) => USER_KINDS[kind].plural;
const collection = (kind: UserKind, ns = NS) => `/apis/meshplane.dev/v1/namespaces/${ns}/${plural(kind)}`;
const GOLDEN_KEYS = { virtualMeshes: "VirtualMesh", trafficPolicies: "TrafficPolicy", accessPolicies: "AccessPolicy" } as const;

/** Every YAML file under `dir`. */
const yamlFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? yamlFiles(join(dir, e.name)) : e.name.endsWith(".yaml") ? [join(dir, e.name)] : [],
  );

/** The example documents of the tests: every golden case's resources, and every meshplane document of a YAML fixture. */
function exampleDocuments(): { source: string; doc: Doc }[] {
  const out: { source: string; doc: Doc }[] = [];
  const golden = join(ROOT, "test/golden");
  for (const name of readdirSync(golden).filter((n) => existsSync(join(golden, n, "input.yaml")))) {
    const input = parse(readFileSync(join(golden, name, "input.yaml"), "utf8")) as Record<string, { name: string; spec: unknown }[] | undefined>;
    for (const [key, kind] of Object.entries(GOLDEN_KEYS))
      for (const r of input[key] ?? [])
        out.push({ source: `golden ${name}`, doc: { apiVersion: API_VERSION, kind, metadata: { name: r.name }, spec: r.spec } });
  }
  for (const file of yamlFiles(join(ROOT, "test"))) {
    const text = readFileSync(file, "utf8");
    if (!text.includes(API_VERSION)) continue;
    for (const d of parseAllDocuments(text)) {
      const doc = d.toJS() as Doc | null;
      if (doc?.apiVersion === API_VERSION && USER_KIND_NAMES.includes(doc.kind)) out.push({ source: file.slice(ROOT.length + 1), doc });
    }
  }
  return out;
}

/** Big documents: a TrafficPolicy over 2,000 services with 100 matchers, a VirtualMesh of 300 meshes. */
function bigDocuments(): { source: string; doc: Doc }[] {
  const services = Array.from({ length: 2000 }, (_, i) => ({ cluster: `cluster-${i % 50}`, namespace: `ns-${i % 40}`, name: `service-${i}` }));
  const matchers = Array.from({ length: 100 }, (_, i) => ({
    uri: { prefix: `/api/v${i}` },
    method: "GET",
    headers: [{ name: "x-tenant", value: `t-${i}` }],
    queryParameters: [{ name: "q", value: `^v${i}$`, regex: true }],
  }));
  const meshes = Array.from({ length: 300 }, (_, i) => ({ name: `istiod-istio-system-cluster-${i}` }));
  return [
    {
      source: "big TrafficPolicy",
      doc: {
        apiVersion: API_VERSION,
        kind: "TrafficPolicy",
        metadata: { name: "big", labels: { team: "platform", "meshplane.dev/source": "git" } },
        spec: {
          destinationSelector: [{ kubeServiceRefs: { services } }],
          httpRequestMatchers: matchers,
          policy: { requestTimeout: "5s", retries: { attempts: 3 } },
        },
      },
    },
    {
      source: "big VirtualMesh",
      doc: {
        apiVersion: API_VERSION,
        kind: "VirtualMesh",
        metadata: { name: "big" },
        spec: {
          meshes,
          mtlsConfig: { shared: { rootCertificateAuthority: { generated: { ttlDays: 3650 } } }, autoRestartPods: true },
          federation: { selectors: [{ destinationSelectors: [{ kubeServiceMatcher: { labels: { app: "cart" }, namespaces: ["shop"] } }], meshes }] },
          globalAccessPolicy: "ENABLED",
        },
      },
    },
  ];
}

/** A document as a custom resource: the API's server-owned metadata left out, in namespace `ns`. */
const asCustomResource = (doc: Doc, name: string, ns = NS) => ({
  apiVersion: doc.apiVersion,
  kind: doc.kind,
  metadata: {
    name,
    namespace: ns,
    ...(doc.metadata.labels ? { labels: doc.metadata.labels } : {}),
    ...(doc.metadata.annotations ? { annotations: doc.metadata.annotations } : {}),
  },
  spec: doc.spec,
});

const tp = (spec: Record<string, unknown>, name = "cart"): Doc => ({ apiVersion: API_VERSION, kind: "TrafficPolicy", metadata: { name }, spec });
const vm = (spec: Record<string, unknown>): Doc => ({ apiVersion: API_VERSION, kind: "VirtualMesh", metadata: { name: "global" }, spec });
const CART = { kubeServiceRefs: { services: [{ cluster: "east", namespace: "shop", name: "cart" }] } };

let cluster: LabCluster;
const create = (kind: UserKind, body: unknown, token?: string) => cluster.request("POST", `${collection(kind)}?fieldValidation=Strict`, body, token);

beforeAll(async () => {
  const crds = renderChart({ ...VALUES, "authoring.enabled": "true" }, JWKS).filter((o) => o.kind === "CustomResourceDefinition");
  expect(crds).toHaveLength(3);
  cluster = await startCluster({
    name: "authoring-crds",
    extraCrds: crds,
    tokens: [
      { token: NAMESPACED_TOKEN, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") },
      { token: EVERYWHERE_TOKEN, ...serviceAccountIdentity(EVERYWHERE_NS, "meshplane-agent") },
    ],
  });
  for (const name of [NS, "web", AGENT_NS, EVERYWHERE_NS, "istio-system"])
    expect((await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } })).status).toBe(201);
}, 600_000);
afterAll(() => cluster?.stop());

describe("the meshplane custom resources on a real kube-apiserver", () => {
  it("take every example document the API takes, golden and big ones, unchanged", async () => {
    const docs = [...exampleDocuments(), ...bigDocuments()];
    const taken = docs.filter(({ doc }) => DOCUMENT_SCHEMAS[doc.kind]?.safeParse(doc).success);
    expect(taken.length).toBeGreaterThan(200);
    expect(new Set(taken.map(({ doc }) => doc.kind))).toEqual(new Set(USER_KIND_NAMES));
    for (const [i, { source, doc }] of taken.entries()) {
      const name = `${doc.metadata.name.slice(0, 55).replace(/-$/, "")}-${i}`;
      const res = await create(doc.kind, asCustomResource(doc, name));
      expect(res.status, `${source} ${doc.kind}/${doc.metadata.name}: ${res.body.message ?? ""}`).toBe(201);
      // Nothing pruned, nothing defaulted: the spec the agent reads is the one written.
      expect(res.body.spec, `${source} ${doc.kind}/${doc.metadata.name}`).toEqual(doc.spec);
    }
  });

  it.each([
    ["a wrong type", tp({ policy: { retries: { attempts: "three" } } }), "spec.policy.retries.attempts", /must be of type integer/],
    ["a value outside an enum", vm({ meshes: [{ name: "m" }], globalAccessPolicy: "SOMETIMES" }), "spec.globalAccessPolicy", /Unsupported value: "SOMETIMES"/],
    ["a name that is no DNS label (a dot)", tp({ policy: { requestTimeout: "5s" } }, "cart.retries"), "metadata.name", /should match/],
    ["a name over 63 characters", tp({ policy: { requestTimeout: "5s" } }, "a".repeat(64)), "metadata.name", /Too long: may not be (longer|more) than 63/],
    ["a missing required field", tp({ destinationSelector: [CART] }), "spec.policy", /Required value/],
    ["a duration that is no duration", tp({ policy: { requestTimeout: "5 seconds" } }), "spec.policy.requestTimeout", /should match/],
    [
      "both kubeServiceMatcher and kubeServiceRefs (CEL)",
      tp({ destinationSelector: [{ kubeServiceMatcher: { namespaces: ["shop"] }, ...CART }], policy: { requestTimeout: "5s" } }),
      "spec.destinationSelector[0]",
      /set exactly one of kubeServiceMatcher or kubeServiceRefs/,
    ],
    [
      "two of exact, prefix and regex (CEL)",
      tp({ httpRequestMatchers: [{ uri: { exact: "/a", prefix: "/" } }], policy: { requestTimeout: "5s" } }),
      "spec.httpRequestMatchers[0].uri",
      /set exactly one of exact, prefix or regex/,
    ],
    ["a field not supported yet (CEL)", vm({ meshes: [{ name: "m" }], mtlsConfig: { limited: {} } }), "spec.mtlsConfig", /limited: not supported yet/],
    // kubectl asks for Strict field validation by default: an unknown field is an error, not pruned.
    ["an unknown field", tp({ policy: { retrys: { attempts: 1 } } }), "", /unknown field "spec.policy.retrys"/],
  ])("refuse %s in the API server, naming the field", async (_what, doc, field, message) => {
    expect(DOCUMENT_SCHEMAS[doc.kind].safeParse(doc).success, "meshplane refuses it too").toBe(false);
    const res = await create(doc.kind, asCustomResource(doc, doc.metadata.name));
    expect(res.status, JSON.stringify(res.body)).toBe(field ? 422 : 400);
    expect(res.body.message).toMatch(message);
    if (field) expect(res.body.details?.causes?.map((c) => c.field)).toContain(field);
  });

  // docs/gitops.md#the-custom-resources: what the schema cannot say is meshplane's to check; the
  // agent submits such a resource and its status turns Stalled, saying why.
  it.each([
    ["weights that are all 0", tp({ policy: { trafficShift: { destinations: [{ kubeService: CART.kubeServiceRefs.services[0], weight: 0 }] } } }), /weight/],
    ["a regular expression RE2 refuses (a lookahead)", tp({ httpRequestMatchers: [{ uri: { regex: "^/(?=api)" } }], policy: { requestTimeout: "5s" } }), /RE2/],
    ["a duration under a millisecond", tp({ policy: { requestTimeout: "0.5ms" } }), /whole milliseconds/],
    [
      "a label key that is no Kubernetes label key",
      tp({ destinationSelector: [{ kubeServiceMatcher: { labels: { "-app": "cart" } } }], policy: { requestTimeout: "5s" } }),
      /label key/,
    ],
    [
      "rotateBeforeDays not under ttlDays",
      vm({
        meshes: [{ name: "m" }],
        mtlsConfig: { shared: { rootCertificateAuthority: { generated: {} }, intermediateCertOptions: { ttlDays: 30, rotateBeforeDays: 30 } } },
      }),
      /rotateBeforeDays/,
    ],
  ])("take %s, which only meshplane refuses", async (_what, doc, message) => {
    const parsed = DOCUMENT_SCHEMAS[doc.kind].safeParse(doc);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join("; ")).toMatch(message);
    const res = await create(doc.kind, asCustomResource(doc, `meshplane-only-${Math.random().toString(36).slice(2, 8)}`));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("show the Ready condition's status and reason as columns, from a status written through the subresource", async () => {
    const created = await create(
      "AccessPolicy",
      asCustomResource({ apiVersion: API_VERSION, kind: "AccessPolicy", metadata: { name: "columns" }, spec: {} }, "columns"),
    );
    expect(created.status).toBe(201);
    const condition = {
      type: "Ready",
      status: "True",
      reason: "Accepted",
      message: "applied in east",
      observedGeneration: 1,
      lastTransitionTime: "2026-01-01T00:00:00Z",
    };
    const status = { observedGeneration: 1, conditions: [condition], meshplane: { name: "columns.shop.east", state: "ACCEPTED" } };
    const patched = await cluster.request("PATCH", `${collection("AccessPolicy")}/columns/status`, { status });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const res = await fetchTable(`${collection("AccessPolicy")}/columns`);
    expect(res.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Ready", "Reason", "Age"]);
    expect(res.rows[0]?.cells.slice(0, 3)).toEqual(["columns", "True", "Accepted"]);
  });

  it("have short names no other resource of the cluster uses (Istio's, SMI's and Gateway API's CRDs installed)", async () => {
    const groups = (await cluster.request<{ groups: { preferredVersion: { groupVersion: string } }[] }>("GET", "/apis")).body.groups;
    const lists = await Promise.all(
      ["/api/v1", ...groups.map((g) => `/apis/${g.preferredVersion.groupVersion}`)].map(
        async (path) => (await cluster.request<{ resources: { name: string; shortNames?: string[] }[] }>("GET", path)).body.resources ?? [],
      ),
    );
    const owners = new Map<string, string[]>();
    for (const r of lists.flat()) for (const s of r.shortNames ?? []) owners.set(s, [...(owners.get(s) ?? []), r.name]);
    for (const kind of USER_KIND_NAMES) expect(owners.get({ VirtualMesh: "mpvm", TrafficPolicy: "mptp", AccessPolicy: "mpap" }[kind])).toEqual([plural(kind)]);
  });
});

/** A GET as a Table, as kubectl asks for the printer columns (the lab's request helper asks for JSON). */
function fetchTable(path: string): Promise<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }> {
  return new Promise((done, fail) => {
    const req = https.get(
      `${cluster.url}${path}`,
      { ca: cluster.caCertPem, headers: { authorization: `Bearer ${cluster.adminToken}`, accept: "application/json;as=Table;v=v1;g=meta.k8s.io" } },
      (res) => {
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => done(JSON.parse(text)));
      },
    );
    req.once("error", fail);
  });
}

const VERBS = ["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"];
const NEEDED = new Set(["get", "list", "watch", "update", "patch"]);
const STATUS_NEEDED = new Set(["get", "update", "patch"]);

/** Whether the API server's authorizer lets `namespace/name`'s ServiceAccount do `verb` (SubjectAccessReview). */
async function allowed(sa: [string, string], attributes: Record<string, string>): Promise<boolean> {
  const { user, groups } = serviceAccountIdentity(...sa);
  const res = await cluster.request<{ status: { allowed: boolean } }>("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: { user, groups, resourceAttributes: attributes },
  });
  return res.body.status.allowed;
}

/** Every verb on every custom resource and its status, in `namespaces` ("" = all namespaces), that `sa` may use, as `ns resource verb`. */
async function grantsOf(sa: [string, string], namespaces: string[]): Promise<string[]> {
  const checks = namespaces.flatMap((namespace) =>
    USER_KIND_NAMES.flatMap((kind) =>
      ["", "status"].flatMap((subresource) => VERBS.map((verb) => ({ namespace, group: "meshplane.dev", resource: plural(kind), subresource, verb }))),
    ),
  );
  const results = await Promise.all(
    checks.map(async (c) => ((await allowed(sa, c)) ? [`${c.namespace || "*"} ${c.resource}${c.subresource ? "/status" : ""} ${c.verb}`] : [])),
  );
  return results.flat().sort();
}

const expected = (namespaces: string[]) =>
  namespaces
    .flatMap((ns) =>
      USER_KIND_NAMES.flatMap((kind) => [
        ...VERBS.filter((v) => NEEDED.has(v)).map((v) => `${ns || "*"} ${plural(kind)} ${v}`),
        ...VERBS.filter((v) => STATUS_NEEDED.has(v)).map((v) => `${ns || "*"} ${plural(kind)}/status ${v}`),
      ]),
    )
    .sort();

/** Installs the chart's RBAC objects rendered with `json`, bound to the ServiceAccount of `agentNs`. */
async function installRbac(json: Record<string, string>, agentNs: string): Promise<void> {
  const objects = renderChart({ ...VALUES, "authoring.enabled": "true" }, { ...JWKS, ...json }) as Obj[];
  for (const obj of objects.filter((o) => /^(Cluster)?Role(Binding)?$/.test(o.kind))) {
    // Another release namespace: the objects its own install would make (cluster-wide names carry it).
    const moved = JSON.parse(JSON.stringify(obj).replaceAll(AGENT_NS, agentNs)) as Obj;
    const path = moved.kind.startsWith("Cluster")
      ? `/apis/rbac.authorization.k8s.io/v1/${moved.kind.toLowerCase()}s`
      : `/apis/rbac.authorization.k8s.io/v1/namespaces/${moved.metadata.namespace ?? agentNs}/${moved.kind.toLowerCase()}s`;
    const res = await cluster.request("POST", path, moved);
    expect([201, 409], `${moved.kind} ${moved.metadata.name}: ${JSON.stringify(res.body)}`).toContain(res.status);
  }
}

describe("the chart's RBAC for authoring, asked of the API server's authorizer", () => {
  beforeAll(async () => {
    await installRbac({ "authoring.namespaces": `["${NS}"]` }, AGENT_NS);
    await installRbac({}, EVERYWHERE_NS);
  });

  it("with authoring.namespaces, lets the agent read, finalize and write the status of the custom resources there, and nothing else", async () => {
    const sa: [string, string] = [AGENT_NS, "meshplane-agent"];
    await eventually("the chart's roles in effect", async () =>
      (await allowed(sa, { namespace: NS, group: "meshplane.dev", resource: "trafficpolicies", verb: "list" })) ? true : undefined,
    );
    expect(await grantsOf(sa, [NS, "web", ""])).toEqual(expected([NS]));
  });

  it("with every namespace, lets it do the same in every namespace, and nothing else", async () => {
    const sa: [string, string] = [EVERYWHERE_NS, "meshplane-agent"];
    await eventually("the chart's roles in effect", async () =>
      (await allowed(sa, { namespace: "", group: "meshplane.dev", resource: "trafficpolicies", verb: "list" })) ? true : undefined,
    );
    expect(await grantsOf(sa, [NS, "web", ""])).toEqual(expected([NS, "web", ""]));
  });

  it("as the agent: adds a finalizer and writes a status, and can neither delete a custom resource nor touch its definition or another group", async () => {
    const doc: Doc = { apiVersion: API_VERSION, kind: "TrafficPolicy", metadata: { name: "as-agent" }, spec: { policy: { requestTimeout: "5s" } } };
    expect((await create("TrafficPolicy", asCustomResource(doc, "as-agent"))).status).toBe(201);
    const path = `${collection("TrafficPolicy")}/as-agent`;
    const asAgent = (method: string, p: string, body?: unknown) => cluster.request(method, p, body, NAMESPACED_TOKEN);
    const finalized = await asAgent("PATCH", path, { metadata: { finalizers: ["meshplane.dev/authored"] } });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    const status = await asAgent("PATCH", `${path}/status`, { status: { observedGeneration: 1, conditions: [] } });
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect((await asAgent("DELETE", path)).status).toBe(403);
    expect((await asAgent("POST", collection("TrafficPolicy"), asCustomResource(doc, "made-by-agent"))).status).toBe(403);
    expect((await asAgent("GET", collection("TrafficPolicy", "web"))).status).toBe(403);
    const crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/trafficpolicies.meshplane.dev";
    expect((await asAgent("GET", crd)).status).toBe(403);
    expect((await asAgent("DELETE", crd)).status).toBe(403);
    expect((await asAgent("PATCH", `/apis/apps/v1/namespaces/${NS}/deployments/any`, { metadata: { labels: { a: "b" } } })).status).toBe(403);
    // The finalizer stays until the agent removes it: an admin's delete leaves the resource, marked.
    expect((await cluster.request("DELETE", path)).status).toBe(200);
    const marked = await cluster.request<KubeObject>("GET", path);
    expect(marked.body.metadata?.deletionTimestamp).toBeDefined();
    expect((await asAgent("PATCH", path, { metadata: { finalizers: null } })).status).toBe(200);
    expect((await cluster.request("GET", path)).status).toBe(404);
  });
});
