import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LabCluster, startCluster } from "./cluster";

// A real etcd + kube-apiserver (RBAC, Istio, SMI and Gateway API CRDs). The first run on a machine builds the
// binaries (scripts/lab/build.sh), which takes many minutes: hence the long hook timeout.
const NAMESPACED_TOKEN = "lab-test-namespaced-user-token";

describe("lab cluster", () => {
  let cluster: LabCluster;

  beforeAll(async () => {
    cluster = await startCluster({
      name: "lab-self-test",
      tokens: [{ token: NAMESPACED_TOKEN, user: "alice", groups: ["lab-developers"] }],
    });
  }, 1_800_000);

  afterAll(async () => {
    if (!cluster) return;
    const dir = cluster.dataDir;
    await cluster.stop();
    expect(existsSync(dir)).toBe(false);
  });

  it("serves the pinned Kubernetes version over TLS with the admin token", async () => {
    const version = await cluster.request<{ gitVersion: string }>("GET", "/version");
    expect(version.status).toBe(200);
    expect(version.body.gitVersion).toBe(cluster.versions.KUBERNETES_VERSION);
    expect(cluster.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(cluster.caCertPem).toContain("BEGIN CERTIFICATE");
    const kubeconfig = cluster.kubeconfig(NAMESPACED_TOKEN);
    expect(kubeconfig).toContain(`server: "${cluster.url}"`);
    expect(kubeconfig).toContain(`token: "${NAMESPACED_TOKEN}"`);
    expect(kubeconfig).toContain("certificate-authority-data:");
    const anonymous = await cluster.request("GET", "/api/v1/namespaces", undefined, "not-a-token");
    expect(anonymous.status).toBe(401);
  });

  it("creates a namespace and a VirtualService that passes the Istio CRD schema", async () => {
    const ns = await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "demo" } });
    expect(ns.status, JSON.stringify(ns.body)).toBe(201);

    const vs = await cluster.request("POST", "/apis/networking.istio.io/v1/namespaces/demo/virtualservices", {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "reviews", namespace: "demo" },
      spec: {
        hosts: ["reviews"],
        http: [{ route: [{ destination: { host: "reviews", subset: "v1" }, weight: 100 }], timeout: "5s" }],
      },
    });
    expect(vs.status, JSON.stringify(vs.body)).toBe(201);
    const got = await cluster.request<{ spec: { http: { timeout?: string }[] } }>(
      "GET",
      "/apis/networking.istio.io/v1/namespaces/demo/virtualservices/reviews",
    );
    expect(got.body.spec.http[0]?.timeout).toBe("5s");
  });

  it("rejects an invalid VirtualService with the CRD's schema validation (422)", async () => {
    const wrongType = await cluster.request("POST", "/apis/networking.istio.io/v1/namespaces/demo/virtualservices", {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "bad-type", namespace: "demo" },
      spec: { hosts: ["reviews"], http: [{ route: [{ destination: { host: "reviews" } }], timeout: 5 }] },
    });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.reason).toBe("Invalid");
    expect(JSON.stringify(wrongType.body)).toContain("spec.http[0].timeout");

    // the CEL rule of the schema (x-kubernetes-validations) runs too
    const badDuration = await cluster.request("POST", "/apis/networking.istio.io/v1/namespaces/demo/virtualservices", {
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      metadata: { name: "bad-duration", namespace: "demo" },
      spec: { hosts: ["reviews"], http: [{ route: [{ destination: { host: "reviews" } }], timeout: "soon" }] },
    });
    expect(badDuration.status).toBe(422);
    expect(JSON.stringify(badDuration.body)).toContain("must be a valid duration");
  });

  it("enforces RBAC: a user with only a namespaced Role cannot create a ClusterRole (403)", async () => {
    const role = await cluster.request("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/roles", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name: "vs-editor", namespace: "demo" },
      rules: [{ apiGroups: ["networking.istio.io"], resources: ["virtualservices"], verbs: ["get", "list", "create", "update", "delete"] }],
    });
    expect(role.status, JSON.stringify(role.body)).toBe(201);
    const binding = await cluster.request("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/demo/rolebindings", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name: "alice-vs-editor", namespace: "demo" },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "vs-editor" },
      subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alice" }],
    });
    expect(binding.status, JSON.stringify(binding.body)).toBe(201);

    // what the Role grants works...
    const list = await cluster.request("GET", "/apis/networking.istio.io/v1/namespaces/demo/virtualservices", undefined, NAMESPACED_TOKEN);
    expect(list.status).toBe(200);
    expect((list.body.items ?? []).map((i) => i.metadata?.name)).toEqual(["reviews"]);

    // ...and nothing else does
    const clusterRole = await cluster.request(
      "POST",
      "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "escalate" },
        rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }],
      },
      NAMESPACED_TOKEN,
    );
    expect(clusterRole.status).toBe(403);
    expect(clusterRole.body.reason).toBe("Forbidden");
    expect(clusterRole.body.message).toContain('User "alice" cannot create resource "clusterroles"');

    const otherNamespace = await cluster.request("GET", "/apis/networking.istio.io/v1/namespaces/default/virtualservices", undefined, NAMESPACED_TOKEN);
    expect(otherNamespace.status).toBe(403);
  });

  it("creates an SMI TrafficSplit (split.smi-spec.io/v1alpha2)", async () => {
    const ts = await cluster.request("POST", "/apis/split.smi-spec.io/v1alpha2/namespaces/demo/trafficsplits", {
      apiVersion: "split.smi-spec.io/v1alpha2",
      kind: "TrafficSplit",
      metadata: { name: "reviews-split", namespace: "demo" },
      spec: {
        service: "reviews",
        backends: [
          { service: "reviews-v1", weight: 90 },
          { service: "reviews-v2", weight: 10 },
        ],
      },
    });
    expect(ts.status, JSON.stringify(ts.body)).toBe(201);

    const missingBackends = await cluster.request("POST", "/apis/split.smi-spec.io/v1alpha2/namespaces/demo/trafficsplits", {
      apiVersion: "split.smi-spec.io/v1alpha2",
      kind: "TrafficSplit",
      metadata: { name: "no-backends", namespace: "demo" },
      spec: { service: "reviews" },
    });
    expect(missingBackends.status).toBe(422);
  });

  it("creates a waypoint Gateway and a mesh HTTPRoute, and refuses what the Gateway API's CEL rules refuse (422)", async () => {
    const waypoint = await cluster.request("POST", "/apis/gateway.networking.k8s.io/v1/namespaces/demo/gateways", {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { name: "waypoint", namespace: "demo", labels: { "istio.io/waypoint-for": "service" } },
      spec: { gatewayClassName: "istio-waypoint", listeners: [{ name: "mesh", port: 15008, protocol: "HBONE" }] },
    });
    expect(waypoint.status, JSON.stringify(waypoint.body)).toBe(201);
    const route = {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "HTTPRoute",
      metadata: { name: "reviews", namespace: "demo" },
      spec: {
        parentRefs: [{ group: "", kind: "Service", name: "reviews", port: 9080 }],
        rules: [{ timeouts: { request: "5s" }, backendRefs: [{ name: "reviews-v1", port: 9080 }] }],
      },
    };
    const created = await cluster.request("POST", "/apis/gateway.networking.k8s.io/v1/namespaces/demo/httproutes", route);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // CEL: a backendRequest timeout longer than the request's is refused.
    const longer = { ...route, metadata: { name: "reviews-longer", namespace: "demo" } };
    longer.spec = {
      ...route.spec,
      rules: [{ timeouts: { request: "1s", backendRequest: "5s" } as { request: string }, backendRefs: route.spec.rules[0]!.backendRefs }],
    };
    const refused = await cluster.request("POST", "/apis/gateway.networking.k8s.io/v1/namespaces/demo/httproutes", longer);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain("backendRequest timeout cannot be longer than request timeout");
  });
});
