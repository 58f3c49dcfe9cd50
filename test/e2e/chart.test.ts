import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeConfig } from "@kubernetes/client-node";
import { GENERATED_KINDS, USER_KIND_NAMES } from "@meshplane/core";
import { GENERATED_KIND_VERBS } from "../../packages/agent/src/ownership";
import { customResourceDefinition } from "../../packages/agent/src/authoring/crds";
import { SOURCES } from "../../packages/agent/src/discovery/discovery-watch";
import { newMemory } from "../../packages/agent/src/loop/memory";
import { Kube } from "../../packages/agent/src/kube/kube";
import {
  FakeControlPlane,
  cycleAt,
  fakeDeps,
  runCertificateStage as certificateStage,
  runRestartStage as restartStage,
} from "../../packages/agent/src/testing/fakes";
import { type LabCluster, serviceAccountIdentity, startCluster } from "../lab/cluster";
import { pathOf } from "../support/seed-cluster";
import { AGENT_NS, eventually, renderChart } from "./lab-agents";

const ROOT = resolve(import.meta.dirname, "../..");
const VALUES = { "controlPlane.url": "https://api.meshplane.example.com", "cluster.name": "cluster-1", "bootstrap.token": "mpb_example" };
const JWKS = { "trust.jwks": JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" }] }) };
/** Metrics on: the cluster's Prometheus, bearer auth from a Secret the chart makes. */
const METRICS = {
  "metrics.prometheus.url": "http://prometheus.monitoring:9090",
  "metrics.prometheus.auth.type": "bearer",
  "metrics.prometheus.auth.token": "tok-1",
};

/**
 * What the agent may write whatever the values, as `group:resource`: the kinds meshplane generates,
 * and Services (patch only: waypoint bindings, held to their labels by the admission policy).
 */
const GENERATED = [...GENERATED_KINDS.map((row) => `${row.group}:${row.plural}`), ":services"];
const GENERATED_GROUPS = new Set<string>(GENERATED_KINDS.map((row) => row.group));

type Rule = { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] };
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; rules?: Rule[]; spec?: Record<string, unknown> };

/** Each group × resource a rule names, as `group:resource[names]`. */
const grants = (rule: Rule): string[] =>
  rule.apiGroups.flatMap((g) => rule.resources.map((r) => `${g}:${r}${rule.resourceNames ? `[${rule.resourceNames.join(",")}]` : ""}`));
const clusterRules = (objects: Obj[]): Rule[] => objects.find((o) => o.kind === "ClusterRole")?.rules ?? [];

/** The agent container's args as the chart renders them with `values`. */
const argsOf = (values: Record<string, string>) =>
  (
    renderChart({ ...VALUES, ...values }, JWKS).find((o) => (o as Obj).kind === "Deployment") as unknown as {
      spec: { template: { spec: { containers: { args: string[] }[] } } };
    }
  ).spec.template.spec.containers[0]?.args ?? [];

const WRITES = ["create", "update", "patch", "delete"];

/**
 * The grants that write, one per group and resource, sorted: the ClusterRole's as they are, each
 * Role's prefixed with its namespace (`ns/group:resource[names]`); the agent's own namespace's Role
 * (its state Secret and Lease) aside. Secrets must always be named, and the ClusterRole holds none.
 */
/** The grants of `rules` that let the agent write. */
function writes(rules: Rule[]) {
  return rules.filter((r) => r.verbs.some((v) => WRITES.includes(v))).flatMap(grants);
}

/** What the agent may do with shared trust in namespace `ns`: read cacerts, restart its istiods. */
function certificatesIn(ns: string, istiods = "istiod") {
  return [`${ns}/:secrets[cacerts]`, `${ns}/apps:deployments[${istiods}]`];
}

function writable(objects: Obj[]): string[] {
  const cluster = clusterRules(objects);
  expect(cluster.filter((r) => r.resources.includes("secrets"))).toEqual([]);
  const namespaced = objects.filter((o) => o.kind === "Role" && o.metadata.name !== "meshplane-agent");
  for (const rule of namespaced.flatMap((o) => o.rules ?? []).filter((r) => r.resources.includes("secrets"))) expect(rule.resourceNames).toEqual(["cacerts"]);
  return [...writes(cluster), ...namespaced.flatMap((o) => writes(o.rules ?? []).map((g) => `${o.metadata.namespace}/${g}`))].sort();
}

/** Each RoleBinding binds the agent's ServiceAccount to the Role of its own name, in its namespace. */
function expectBindings(objects: Obj[]): void {
  const roles = objects
    .filter((o) => o.kind === "Role")
    .map((o) => `${o.metadata.namespace}/${o.metadata.name}`)
    .sort();
  const bindings = objects.filter((o) => o.kind === "RoleBinding") as unknown as {
    metadata: { name: string; namespace: string };
    roleRef: { kind: string; name: string };
    subjects: { kind: string; name: string; namespace: string }[];
  }[];
  expect(bindings.map((b) => `${b.metadata.namespace}/${b.roleRef.name}`).sort()).toEqual(roles);
  for (const b of bindings) expect(b.subjects).toEqual([{ kind: "ServiceAccount", name: "meshplane-agent", namespace: AGENT_NS }]);
}

const READ_VERBS = new Set(["get", "list", "watch"]);

/**
 * Everything the ClusterRole lets the agent write in the generated kinds' API groups, as
 * `group:resource verbs`, sorted. Read-only rules there (discovery's Gateways) are held to what
 * discovery watches by the read rules' own test.
 */
function inGeneratedGroups(objects: Obj[]): string[] {
  return clusterRules(objects)
    .filter((rule) => rule.apiGroups.some((g) => GENERATED_GROUPS.has(g)))
    .filter((rule) => !rule.verbs.every((v) => READ_VERBS.has(v)))
    .flatMap((rule) => grants(rule).map((grant) => `${grant} ${rule.verbs.toSorted().join(",")}`))
    .sort();
}

const PATHS: Record<string, string> = {
  ClusterRole: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
  ClusterRoleBinding: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
  Role: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AGENT_NS}/roles`,
  RoleBinding: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AGENT_NS}/rolebindings`,
  Namespace: "/api/v1/namespaces",
  Deployment: `/apis/apps/v1/namespaces/${AGENT_NS}/deployments`,
  PodDisruptionBudget: `/apis/policy/v1/namespaces/${AGENT_NS}/poddisruptionbudgets`,
  NetworkPolicy: `/apis/networking.k8s.io/v1/namespaces/${AGENT_NS}/networkpolicies`,
  ServiceAccount: `/api/v1/namespaces/${AGENT_NS}/serviceaccounts`,
  ValidatingAdmissionPolicy: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies",
  ValidatingAdmissionPolicyBinding: "/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings",
};

// The agent's identity in the lab apiserver: a static token mapped to the chart's ServiceAccount.
const AGENT_TOKEN = `chart-agent-${Math.random().toString(36).slice(2)}`;
const ISTIOD_ID = "spiffe://cluster.local/ns/istio-system/sa/istiod";

/** Where an object of the chart is created: a Role or RoleBinding in its own namespace. */
const pathOfChartObject = (obj: Obj) =>
  obj.kind === "Role" || obj.kind === "RoleBinding"
    ? `/apis/rbac.authorization.k8s.io/v1/namespaces/${obj.metadata.namespace ?? AGENT_NS}/${obj.kind.toLowerCase()}s`
    : (PATHS[obj.kind] ?? pathOf(obj));

/** Creates the namespaces (the apiserver keeps a namespace's objects out until it exists), then the chart's RBAC objects. */
async function installRbac(objects: Obj[], namespaces: string[]): Promise<void> {
  for (const name of [AGENT_NS, ...namespaces])
    await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  for (const obj of objects.filter((o) => o.kind.startsWith("ClusterRole") || o.kind.startsWith("Role"))) {
    const res = await cluster.request("POST", pathOfChartObject(obj), obj);
    expect([201, 409], `${obj.kind} ${obj.metadata.namespace ?? ""}/${obj.metadata.name}: ${JSON.stringify(res.body)}`).toContain(res.status);
  }
}

const deploymentOf = (namespace: string, name: string) => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, namespace },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name, image: `example/${name}:1` }] } },
  },
});

let cluster: LabCluster;
beforeAll(async () => {
  cluster = await startCluster({ name: "chart", tokens: [{ token: AGENT_TOKEN, ...serviceAccountIdentity(AGENT_NS, "meshplane-agent") }] });
}, 600_000);
afterAll(() => cluster?.stop());

describe("the agent's Helm chart", () => {
  it("passes helm lint", () => {
    const helm = execFileSync("bash", [join(ROOT, "scripts/helm.sh")], { encoding: "utf8" }).trim();
    const args = Object.entries(VALUES).flatMap(([k, v]) => ["--set-string", `${k}=${v}`]);
    const out = execFileSync(helm, ["lint", join(ROOT, "packages/agent/chart"), ...args, "--set-json", `trust.jwks=${JWKS["trust.jwks"]}`, "--strict"], {
      encoding: "utf8",
    });
    expect(out).toContain("1 chart(s) linted, 0 chart(s) failed");
  });

  it("refuses to render without the values an agent cannot run without", () => {
    expect(() => renderChart({ "controlPlane.url": "https://x" })).toThrow(/is required/);
  });

  it.each(["[]", '[""]'])("refuses istiodDeployments=%s, which would widen or void the istiod rule", (list) => {
    expect(() => renderChart(VALUES, { ...JWKS, "certificates.istiodDeployments": list })).toThrow(/certificates\.istiodDeployments must/);
  });

  it.each([
    ["certificates.namespaces", "[]", {}],
    ["certificates.namespaces", '[""]', {}],
    ["certificates.autoRestartPods.namespaces", "[]", { "certificates.autoRestartPods.enabled": "true" }],
    ["certificates.autoRestartPods.namespaces", '[""]', { "certificates.autoRestartPods.enabled": "true" }],
    [
      "certificates.autoRestartPods.workloads",
      '[""]',
      { "certificates.autoRestartPods.enabled": "true", "certificates.autoRestartPods.namespaces": '["shop"]' },
    ],
  ])("refuses %s=%s, naming the value", (value, list, more) => {
    expect(() => renderChart(VALUES, { ...JWKS, ...more, [value]: list })).toThrow(new RegExp(`${value.replaceAll(".", "\\.")} must`));
  });

  it("grants least privilege: no wildcards, writes only to generated kinds, cacerts and istiod, secrets by name only", () => {
    const objects = renderChart({ ...VALUES, "networkPolicy.enabled": "true" }, JWKS) as Obj[];
    expect(objects.map((o) => o.kind).sort()).toEqual([
      "ClusterRole",
      "ClusterRoleBinding",
      "ConfigMap",
      "Deployment",
      "NetworkPolicy",
      "PodDisruptionBudget",
      "Role",
      "Role",
      "RoleBinding",
      "RoleBinding",
      "Secret",
      "ServiceAccount",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
    ]);
    expectBindings(objects);
    const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    for (const rule of roles.flatMap((r) => r.rules ?? [])) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain("*");
    }
    expect(writable(objects)).toEqual([...GENERATED, "istio-system/:secrets[cacerts]", "istio-system/apps:deployments[istiod]"].sort());
    const deployment = objects.find((o) => o.kind === "Deployment") as unknown as {
      spec: {
        replicas: number;
        template: {
          spec: {
            securityContext: Record<string, unknown>;
            containers: { securityContext: Record<string, unknown>; readinessProbe: unknown; livenessProbe: unknown; resources: unknown }[];
          };
        };
      };
    };
    expect(deployment.spec.replicas).toBe(2);
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(pod.containers[0]?.readinessProbe).toBeDefined();
    expect(pod.containers[0]?.resources).toBeDefined();
  });

  // The rules are YAML, the kinds and verbs code: a kind added to GENERATED_KINDS without its rule,
  // a rule left behind, or a verb more or less than the agent uses, fails here.
  it.each([
    ["the defaults", {}],
    ["certificates off", { "certificates.enabled": "false" }],
  ])("with %s, grants exactly the generated kinds and exactly the verbs the agent uses on them", (_what, values) => {
    const objects = renderChart(VALUES, { ...JWKS, ...values }) as Obj[];
    const verbs = GENERATED_KIND_VERBS.toSorted().join(",");
    expect(inGeneratedGroups(objects)).toEqual(GENERATED_KINDS.map((row) => `${row.group}:${row.plural} ${verbs}`).sort());
    expect(clusterRules(objects).filter((rule) => rule.resources.includes("services") && rule.verbs.some((v) => WRITES.includes(v)))).toEqual([
      { apiGroups: [""], resources: ["services"], verbs: ["patch"] },
    ]);
  });

  it.each([
    ["certificates off", { "certificates.enabled": "false" }, GENERATED],
    [
      "revisioned istiods",
      { "certificates.istiodDeployments": '["istiod","istiod-1-24"]' },
      [...GENERATED, ...certificatesIn("istio-system", "istiod,istiod-1-24")],
    ],
    [
      "two meshes' namespaces",
      { "certificates.namespaces": '["istio-system","mesh-b","mesh-b"]' },
      [...GENERATED, ...certificatesIn("istio-system"), ...certificatesIn("mesh-b")],
    ],
    [
      "workload restarts in two namespaces",
      { "certificates.autoRestartPods.enabled": "true", "certificates.autoRestartPods.namespaces": '["shop","web"]' },
      [
        ...GENERATED,
        ...certificatesIn("istio-system"),
        ...["shop", "web"].flatMap((ns) => [`${ns}/apps:deployments`, `${ns}/apps:statefulsets`, `${ns}/apps:daemonsets`]),
      ],
    ],
    [
      "restarts of named workloads",
      {
        "certificates.autoRestartPods.enabled": "true",
        "certificates.autoRestartPods.namespaces": '["shop"]',
        "certificates.autoRestartPods.workloads": '["cart","checkout"]',
      },
      [
        ...GENERATED,
        ...certificatesIn("istio-system"),
        "shop/apps:deployments[cart,checkout]",
        "shop/apps:statefulsets[cart,checkout]",
        "shop/apps:daemonsets[cart,checkout]",
      ],
    ],
    ["workload restarts without certificates", { "certificates.enabled": "false", "certificates.autoRestartPods.enabled": "true" }, GENERATED],
  ])("with %s, grants exactly the writes it needs, in the namespaces named", (_what, values, expected) => {
    const objects = renderChart(VALUES, { ...JWKS, ...values }) as Obj[];
    expect(writable(objects)).toEqual([...expected].sort());
    expectBindings(objects);
    const args =
      (objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: { args: string[] }[] } } } }).spec.template.spec
        .containers[0]?.args ?? [];
    expect(args).toContain(`--certificates=${(values as Record<string, string>)["certificates.enabled"] ?? "true"}`);
  });

  // Discovery's lists are code, the read rules YAML: a list without its rule would keep discovery
  // from ever reporting (or, for an optional kind, report it empty); a read rule without a list grants
  // more than the agent uses.
  it("grants read-only get/list/watch on exactly what discovery watches, Gateway API gateways and the HTTPRoute CRD by name included", () => {
    const reads = clusterRules(renderChart(VALUES, JWKS) as Obj[]).filter((rule) => rule.verbs.toSorted().join(",") === "get,list,watch");
    const watched = SOURCES.map(({ path }) => {
      const [route = "", query = ""] = path.split("?");
      const [, api, ...rest] = route.split("/");
      const group = api === "api" ? "" : (rest[0] as string);
      // A list selected by metadata.name is authorized against the rule's resourceNames.
      const name = /^fieldSelector=metadata\.name%3D(.+)$/.exec(query)?.[1];
      return `${group}:${rest.at(-1)}${name ? `[${decodeURIComponent(name)}]` : ""}`;
    });
    expect(reads.flatMap(grants).sort()).toEqual(watched.sort());
    expect(watched).toContain("gateway.networking.k8s.io:gateways");
    expect(watched).toContain("apiextensions.k8s.io:customresourcedefinitions[httproutes.gateway.networking.k8s.io]");
  });

  it("passes the push channel's own URL to the agent when one is set (AWS), and none otherwise", () => {
    expect(argsOf({ "controlPlane.pushUrl": "wss://abc123.execute-api.eu-west-1.amazonaws.com/live" })).toContain(
      "--push-url=wss://abc123.execute-api.eu-west-1.amazonaws.com/live",
    );
    expect(argsOf({}).some((a) => a.startsWith("--push-url"))).toBe(false);
  });

  it("reads no Prometheus unless its URL is set: no flags, no credentials, no egress", () => {
    const objects = renderChart({ ...VALUES, "networkPolicy.enabled": "true" }, JWKS) as Obj[];
    expect(argsOf({})).toContain("--metrics=false");
    expect(argsOf({}).some((a) => a.startsWith("--prometheus"))).toBe(false);
    expect(objects.filter((o) => o.kind === "Secret").map((o) => o.metadata.name)).toEqual(["meshplane-agent-bootstrap"]);
    expect(JSON.stringify(objects.find((o) => o.kind === "NetworkPolicy"))).not.toContain("9090");
    expect(argsOf({ ...METRICS, "metrics.enabled": "false" })).toContain("--metrics=false");
  });

  it("with a Prometheus URL passes the metrics values, mounts its credentials and lets the agent reach its port", () => {
    const objects = renderChart(
      { ...VALUES, ...METRICS, "networkPolicy.enabled": "true", "metrics.prometheus.orgId": "acme", "metrics.istioClusterId": "east" },
      JWKS,
    ) as Obj[];
    const deployment = objects.find((o) => o.kind === "Deployment") as unknown as {
      spec: { template: { spec: { containers: { args: string[]; volumeMounts: unknown[] }[]; volumes: unknown[] } } };
    };
    const pod = deployment.spec.template.spec;
    expect(pod.containers[0]?.args.filter((a) => /^--(prometheus|metrics|istio)/.test(a))).toEqual([
      "--prometheus-url=http://prometheus.monitoring:9090",
      "--prometheus-auth=bearer",
      "--prometheus-org-id=acme",
      "--prometheus-timeout=20",
      "--metrics-interval=60",
      "--metrics-send-every=300",
      "--metrics-max-edges=1000",
      "--istio-cluster-id=east",
    ]);
    expect(pod.containers[0]?.volumeMounts).toContainEqual({ name: "prometheus", mountPath: "/etc/meshplane/prometheus", readOnly: true });
    expect(pod.volumes).toContainEqual({ name: "prometheus", secret: { secretName: "meshplane-agent-prometheus" } });
    const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === "meshplane-agent-prometheus") as unknown as { stringData: unknown };
    expect(secret.stringData).toEqual({ token: "tok-1" });
    const policy = objects.find((o) => o.kind === "NetworkPolicy") as unknown as { spec: { egress: { ports: { port: number }[] }[] } };
    expect(policy.spec.egress.at(-1)).toEqual({ ports: [{ port: 9090, protocol: "TCP" }] });
    // An https URL without a port: 443.
    const https = renderChart(
      { ...VALUES, ...METRICS, "networkPolicy.enabled": "true", "metrics.prometheus.url": "https://mimir.example.com/prometheus" },
      JWKS,
    ) as Obj[];
    expect((https.find((o) => o.kind === "NetworkPolicy") as unknown as { spec: { egress: unknown[] } }).spec.egress.at(-1)).toEqual({
      ports: [{ port: 443, protocol: "TCP" }],
    });
  });

  it("uses an existing Secret for Prometheus credentials, and refuses credentials it cannot find", () => {
    const basic = { ...VALUES, "metrics.prometheus.url": "http://prom:9090", "metrics.prometheus.auth.type": "basic" };
    const existing = renderChart({ ...basic, "metrics.prometheus.auth.existingSecret": "prom-reader" }, JWKS) as Obj[];
    expect(existing.filter((o) => o.kind === "Secret").map((o) => o.metadata.name)).toEqual(["meshplane-agent-bootstrap"]);
    expect(JSON.stringify(existing.find((o) => o.kind === "Deployment"))).toContain('"secretName":"prom-reader"');
    expect(() => renderChart({ ...basic, "metrics.prometheus.auth.username": "reader" }, JWKS)).toThrow(/metrics\.prometheus\.auth\.password is required/);
    expect(() => renderChart({ ...basic, "metrics.prometheus.auth.type": "oauth" }, JWKS)).toThrow(/must be none, bearer or basic/);
  });

  // RBAC names resources by plural: a wrong plural or version in the table would grant nothing and
  // prune nothing, silently. The lab installs the CRDs Istio and OSM ship.
  it("names, for every generated kind, a resource the real CRDs serve in every version it is written in", async () => {
    const served: string[] = [];
    for (const row of GENERATED_KINDS) {
      for (const version of row.versions) {
        const res = await cluster.request<{ resources: { name: string; kind: string }[] }>("GET", `/apis/${row.group}/${version}`);
        if (res.body.resources?.some((r) => r.name === row.plural && r.kind === row.kind)) served.push(`${row.kind} ${row.group}/${version}`);
      }
    }
    expect(served).toEqual(GENERATED_KINDS.flatMap((row) => row.versions.map((version) => `${row.kind} ${row.group}/${version}`)));
  });

  it("renders objects a real apiserver accepts (server-side dry run)", async () => {
    const objects = renderChart(
      { ...VALUES, "networkPolicy.enabled": "true", ...METRICS },
      {
        ...JWKS,
        "metrics.prometheus.networkPolicyPeers": '[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]',
        "certificates.autoRestartPods.enabled": "true",
        "certificates.autoRestartPods.namespaces": '["shop"]',
        "certificates.autoRestartPods.workloads": '["web"]',
      },
    ) as Obj[];
    for (const name of [AGENT_NS, "istio-system", "shop"])
      await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } });
    for (const obj of objects) {
      const res = await cluster.request("POST", `${pathOfChartObject(obj)}?dryRun=All&fieldValidation=Strict`, obj);
      expect(res.status, `${obj.kind} ${obj.metadata.name}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });

  // docs/agent.md#waypoint-bindings: the binding label under its own field manager; the real
  // apiserver's RBAC is the judge. (The chart's ValidatingAdmissionPolicy is installed here too; its
  // refusals are asserted in test/e2e/waypoint-bindings.test.ts, with the agent's own identity.)
  it("lets the agent bind a Service to a waypoint and release it, and never create or delete one", async () => {
    const objects = renderChart(VALUES, JWKS) as Obj[];
    await installRbac(objects, ["books", "istio-system"]);
    for (const obj of objects.filter((o) => o.kind.startsWith("ValidatingAdmissionPolicy"))) {
      const res = await cluster.request("POST", pathOfChartObject(obj), obj);
      expect([201, 409], JSON.stringify(res.body)).toContain(res.status);
    }
    const services = "/api/v1/namespaces/books/services";
    const service = { apiVersion: "v1", kind: "Service", metadata: { name: "reviews", namespace: "books", labels: { team: "books" } } };
    expect((await cluster.request("POST", services, { ...service, spec: { ports: [{ port: 9080 }] } })).status).toBe(201);
    const asAgent = (method: string, path: string, body: unknown, contentType: string) => cluster.request(method, path, body, AGENT_TOKEN, { contentType });
    const apply = "application/apply-patch+yaml";
    const bind = (labels: Record<string, string>) =>
      asAgent("PATCH", `${services}/reviews?fieldManager=meshplane-waypoint-binding`, { ...service, metadata: { ...service.metadata, labels } }, apply);
    // The policy reaches the apiserver's admission through an informer: wait until it refuses.
    // RBAC reaches the authorizer through an informer: wait until the agent may bind.
    const bound = await eventually("the chart's roles in effect", async () => {
      const res = await bind({ "istio.io/use-waypoint": "meshplane-waypoint" });
      return res.status === 200 ? res : undefined;
    });
    expect(bound.body).toMatchObject({ metadata: { labels: { team: "books", "istio.io/use-waypoint": "meshplane-waypoint" } } });
    // Releasing the binding: the same manager's apply without the label removes it and nothing else.
    const released = await asAgent(
      "PATCH",
      `${services}/reviews?fieldManager=meshplane-waypoint-binding`,
      { ...service, metadata: { name: "reviews", namespace: "books" } },
      apply,
    );
    expect(released.status, JSON.stringify(released.body)).toBe(200);
    const after = (await cluster.request<{ metadata: { labels: Record<string, string> } }>("GET", `${services}/reviews`)).body;
    expect(after.metadata.labels).toEqual({ team: "books" });
    // No Service is created by a bare binding patch (the agent also reads first and never sends one
    // for a Service that does not exist).
    const created = await asAgent(
      "PATCH",
      `${services}/new?fieldManager=meshplane-waypoint-binding`,
      { ...service, metadata: { name: "new", namespace: "books" } },
      apply,
    );
    expect(created.status).toBeGreaterThanOrEqual(400);
    expect((await cluster.request("GET", `${services}/new`)).status).toBe(404);
    expect((await asAgent("DELETE", `${services}/reviews`, undefined, "application/json")).status).toBe(403);
  });

  it("lets the agent write cacerts and restart istiod under exactly the chart's RBAC, and nothing more", async () => {
    await installRbac(renderChart(VALUES, JWKS) as Obj[], ["istio-system", "shop", "mesh-b"]);
    for (const [ns, name] of [
      ["istio-system", "istiod"],
      ["shop", "web"],
      ["mesh-b", "istiod"],
    ] as const)
      expect((await cluster.request("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentOf(ns, name))).status).toBe(201);
    const secrets = "/api/v1/namespaces/istio-system/secrets";
    await cluster.request("POST", secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "other", namespace: "istio-system" },
      stringData: { x: "y" },
    });
    // RBAC reaches the authorizer through an informer: wait until the agent may read cacerts.
    await eventually("the chart's roles in effect", async () =>
      (await cluster.request("GET", `${secrets}/cacerts`, undefined, AGENT_TOKEN)).status === 404 ? true : undefined,
    );

    const kc = new KubeConfig();
    kc.loadFromString(cluster.kubeconfig(AGENT_TOKEN));
    const kube = new Kube(kc);
    const cp = await FakeControlPlane.create({ mesh: ISTIOD_ID });
    const memory = newMemory();
    memory.directives = [cp.directive("mesh", { secretNamespace: "istio-system" })];
    const ctx = cycleAt(fakeDeps(kube, cp), memory);
    await certificateStage(ctx);
    await restartStage(ctx);
    kube.close();
    expect(memory.meshes.get("mesh")?.result).toMatchObject({ mesh: "mesh", state: "issued" });
    const secret = (
      await cluster.request<{
        type: string;
        data: Record<string, string>;
        metadata: { annotations: Record<string, string>; managedFields: { manager: string }[] };
      }>("GET", `${secrets}/cacerts`)
    ).body;
    expect(secret.type).toBe("Opaque");
    expect(Object.keys(secret.data).sort()).toEqual(["ca-cert.pem", "ca-key.pem", "cert-chain.pem", "root-cert.pem"]);
    expect(secret.metadata.annotations["meshplane.dev/istiod-restarted-for"]).toBe(secret.metadata.annotations["meshplane.dev/roots-changed-at"]);
    expect(new Set(secret.metadata.managedFields.map((f) => f.manager))).toEqual(new Set(["meshplane-agent"]));
    const istiod = (
      await cluster.request<{ spec: { template: { metadata: { annotations?: Record<string, string> } } } }>(
        "GET",
        "/apis/apps/v1/namespaces/istio-system/deployments/istiod",
      )
    ).body;
    expect(istiod.spec.template.metadata.annotations?.["meshplane.dev/restarted-at"]).toBeDefined();

    const asAgent = (method: string, path: string, body?: unknown, contentType?: string) =>
      cluster.request(method, path, body, AGENT_TOKEN, contentType ? { contentType } : undefined);
    const apply = "application/apply-patch+yaml";
    const restart = { spec: { template: { metadata: { annotations: { "meshplane.dev/restarted-at": "now" } } } } };
    expect((await asAgent("GET", `${secrets}/other`)).status).toBe(403);
    expect((await asAgent("POST", secrets, { apiVersion: "v1", kind: "Secret", metadata: { name: "cacerts" } })).status).toBe(403);
    expect(
      (await asAgent("PATCH", `${secrets}/mine?fieldManager=meshplane-agent`, { apiVersion: "v1", kind: "Secret", metadata: { name: "mine" } }, apply)).status,
    ).toBe(403);
    expect((await asAgent("PATCH", "/apis/apps/v1/namespaces/shop/deployments/web", restart)).status).toBe(403);
    // A namespace the values do not name: no cacerts, no istiod restart there.
    expect((await asAgent("GET", "/api/v1/namespaces/mesh-b/secrets/cacerts")).status).toBe(403);
    expect(
      (
        await asAgent(
          "PATCH",
          "/api/v1/namespaces/mesh-b/secrets/cacerts?fieldManager=meshplane-agent",
          { apiVersion: "v1", kind: "Secret", metadata: { name: "cacerts" } },
          apply,
        )
      ).status,
    ).toBe(403);
    expect((await asAgent("PATCH", "/apis/apps/v1/namespaces/mesh-b/deployments/istiod", restart)).status).toBe(403);
  });

  it("with workload restarts on, lets the agent restart only the workloads of the namespaces and names the values give", async () => {
    const values = {
      "certificates.autoRestartPods.enabled": "true",
      "certificates.autoRestartPods.namespaces": '["store"]',
      "certificates.autoRestartPods.workloads": '["cart"]',
    };
    await installRbac(renderChart(VALUES, { ...JWKS, ...values }) as Obj[], ["store", "elsewhere"]);
    for (const [ns, name] of [
      ["store", "cart"],
      ["store", "admin"],
      ["elsewhere", "cart"],
    ] as const)
      expect((await cluster.request("POST", `/apis/apps/v1/namespaces/${ns}/deployments`, deploymentOf(ns, name))).status).toBe(201);
    const restart = { spec: { template: { metadata: { annotations: { "meshplane.dev/restarted-at": "now" } } } } };
    const patch = (ns: string, name: string) => cluster.request("PATCH", `/apis/apps/v1/namespaces/${ns}/deployments/${name}`, restart, AGENT_TOKEN);
    await eventually("the restart Role in effect", async () => ((await patch("store", "cart")).status === 200 ? true : undefined));
    expect((await patch("store", "admin")).status).toBe(403);
    expect((await patch("elsewhere", "cart")).status).toBe(403);
    expect((await cluster.request("GET", "/api/v1/namespaces/store/secrets/cacerts", undefined, AGENT_TOKEN)).status).toBe(403);
  });
});

// docs/gitops.md#the-custom-resources and docs/agent.md#permissions-the-chart: the custom resources
// and what the agent may do with them, only when authoring is on.
const authoringArgs = (objects: Obj[]) =>
  (
    objects.find((o) => o.kind === "Deployment") as unknown as { spec: { template: { spec: { containers: { args: string[] }[] } } } }
  ).spec.template.spec.containers[0]?.args.filter((a) => a.startsWith("--authoring")) ?? [];
/** Every rule on group meshplane.dev, as `Kind namespace/name: rule`. */
const meshplaneRules = (objects: Obj[]) =>
  objects
    .filter((o) => o.rules?.some((r) => r.apiGroups.includes("meshplane.dev")))
    .map((o) => ({ at: `${o.kind} ${o.metadata.namespace ?? ""}/${o.metadata.name}`, rules: o.rules }));
/** CRDs by name. */
const byName = (list: Obj[]) => list.toSorted((a, b) => a.metadata.name.localeCompare(b.metadata.name));
/** The rules of the chart's main ClusterRole. */
const mainRules = (list: Obj[]) => list.find((o) => o.kind === "ClusterRole" && o.metadata.name === "meshplane-agent-meshplane-system")?.rules;

describe("the chart with authoring (policies from Git)", () => {
  const AUTHORING_RULES: Rule[] = [
    { apiGroups: ["meshplane.dev"], resources: ["virtualmeshes", "trafficpolicies", "accesspolicies"], verbs: ["get", "list", "watch", "update", "patch"] },
    {
      apiGroups: ["meshplane.dev"],
      resources: ["virtualmeshes/status", "trafficpolicies/status", "accesspolicies/status"],
      verbs: ["get", "update", "patch"],
    },
  ];
  const ON = { "authoring.enabled": "true" };
  const render = (json: Record<string, string> = {}, values: Record<string, string> = ON) =>
    renderChart({ ...VALUES, ...values }, { ...JWKS, ...json }) as Obj[];

  it("is off by default: no CustomResourceDefinition, nothing granted on meshplane.dev, and the agent told so", () => {
    const objects = render({}, {});
    expect(objects.filter((o) => o.kind === "CustomResourceDefinition")).toEqual([]);
    expect(meshplaneRules(objects)).toEqual([]);
    expect(JSON.stringify(objects.filter((o) => o.kind.includes("Role")))).not.toContain("authoring");
    expect(authoringArgs(objects)).toEqual(["--authoring=false"]);
    expect(authoringArgs(render({}, { "authoring.enabled": "false", "authoring.installCrds": "true" }))).toEqual(["--authoring=false"]);
  });

  it("installs the three generated CustomResourceDefinitions as gen:crds wrote them, kept on uninstall; installCrds=false installs none", () => {
    const crds = render().filter((o) => o.kind === "CustomResourceDefinition");
    expect(byName(crds)).toEqual(byName(USER_KIND_NAMES.map((kind) => customResourceDefinition(kind) as unknown as Obj)));
    for (const crd of crds) expect(crd.metadata).toMatchObject({ annotations: { "helm.sh/resource-policy": "keep" } });
    const without = render({}, { ...ON, "authoring.installCrds": "false" });
    expect(without.filter((o) => o.kind === "CustomResourceDefinition")).toEqual([]);
    expect(meshplaneRules(without)).toHaveLength(1);
  });

  it("with no namespaces named, grants exactly the custom resources' verbs in every namespace (a ClusterRole) and watches every namespace", () => {
    const objects = render();
    expect(meshplaneRules(objects)).toEqual([{ at: "ClusterRole /meshplane-agent-meshplane-system-authoring", rules: AUTHORING_RULES }]);
    const binding = objects.find((o) => o.kind === "ClusterRoleBinding" && o.metadata.name === "meshplane-agent-meshplane-system-authoring") as unknown as {
      roleRef: unknown;
      subjects: unknown;
    };
    expect(binding.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "meshplane-agent-meshplane-system-authoring" });
    expect(binding.subjects).toEqual([{ kind: "ServiceAccount", name: "meshplane-agent", namespace: AGENT_NS }]);
    expect(authoringArgs(objects)).toEqual(["--authoring=true", "--authoring-namespaces=", "--authoring-sync-every=300", "--authoring-status-every=30"]);
    // The chart's other grants are what they are without authoring.
    expect(mainRules(objects)).toEqual(mainRules(render({}, {})));
  });

  it("with namespaces named, grants them in a Role in each and nothing cluster-wide, and passes the values to the agent", () => {
    const objects = render({ "authoring.namespaces": '["shop","web","shop"]' }, { ...ON, "authoring.syncEvery": "600", "authoring.statusEvery": "15" });
    expect(meshplaneRules(objects)).toEqual([
      { at: "Role shop/meshplane-agent-authoring", rules: AUTHORING_RULES },
      { at: "Role web/meshplane-agent-authoring", rules: AUTHORING_RULES },
    ]);
    expect(objects.filter((o) => o.kind.startsWith("ClusterRole")).map((o) => o.metadata.name)).toEqual([
      "meshplane-agent-meshplane-system",
      "meshplane-agent-meshplane-system",
    ]);
    expectBindings(objects);
    expect(authoringArgs(objects)).toEqual([
      "--authoring=true",
      "--authoring-namespaces=shop,web",
      "--authoring-sync-every=600",
      "--authoring-status-every=15",
    ]);
  });

  it("passes helm lint with authoring on", () => {
    const helm = execFileSync("bash", [join(ROOT, "scripts/helm.sh")], { encoding: "utf8" }).trim();
    const args = Object.entries({ ...VALUES, ...ON }).flatMap(([k, v]) => ["--set-string", `${k}=${v}`]);
    const json = ["--set-json", `trust.jwks=${JWKS["trust.jwks"]}`, "--set-json", 'authoring.namespaces=["shop"]'];
    const out = execFileSync(helm, ["lint", join(ROOT, "packages/agent/chart"), ...args, ...json, "--strict"], { encoding: "utf8" });
    expect(out).toContain("1 chart(s) linted, 0 chart(s) failed");
  });

  it("refuses an empty namespace name, naming the value", () => {
    expect(() => render({ "authoring.namespaces": '["shop",""]' })).toThrow(/authoring\.namespaces must not hold an empty name/);
  });
});
