import { execFileSync } from "node:child_process";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LabCluster, startCluster } from "../lab/cluster";
import { pathOf } from "../support/seed-cluster";
import { AGENT_NS, renderChart } from "./lab-agents";

const ROOT = resolve(import.meta.dirname, "../..");
const VALUES = { "controlPlane.url": "https://api.meshplane.example.com", "cluster.name": "cluster-1", "bootstrap.token": "mpb_example" };
const JWKS = { "trust.jwks": JSON.stringify({ keys: [{ kty: "EC", crv: "P-256", x: "x", y: "y", kid: "k1" }] }) };

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[]; spec?: Record<string, unknown> };

let cluster: LabCluster;
beforeAll(async () => {
  cluster = await startCluster({ name: "chart" });
}, 600_000);
afterAll(() => cluster?.stop());

describe("the agent's Helm chart", () => {
  it("passes helm lint", () => {
    const helm = execFileSync("bash", [join(ROOT, "scripts/helm.sh")], { encoding: "utf8" }).trim();
    const args = Object.entries(VALUES).flatMap(([k, v]) => ["--set-string", `${k}=${v}`]);
    const out = execFileSync(helm, ["lint", join(ROOT, "packages/agent/chart"), ...args, "--set-json", `trust.jwks=${JWKS["trust.jwks"]}`, "--strict"], { encoding: "utf8" });
    expect(out).toContain("1 chart(s) linted, 0 chart(s) failed");
  });

  it("refuses to render without the values an agent cannot run without", () => {
    expect(() => renderChart({ "controlPlane.url": "https://x" })).toThrow(/is required/);
  });

  it("grants least privilege: no wildcards, writes only to generated kinds, secrets only in its namespace", () => {
    const objects = renderChart({ ...VALUES, "networkPolicy.enabled": "true" }, JWKS) as Obj[];
    expect(objects.map((o) => o.kind).sort()).toEqual(["ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment", "NetworkPolicy", "PodDisruptionBudget", "Role", "RoleBinding", "Secret", "ServiceAccount"]);
    const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
    for (const rule of roles.flatMap((r) => r.rules ?? [])) {
      expect([...rule.apiGroups, ...rule.resources, ...rule.verbs]).not.toContain("*");
    }
    const clusterRules = roles.find((r) => r.kind === "ClusterRole")?.rules ?? [];
    const writable = clusterRules.filter((r) => r.verbs.some((v) => ["create", "update", "patch", "delete"].includes(v))).flatMap((r) => r.apiGroups.map((g) => `${g}:${r.resources.join(",")}`));
    expect(writable.sort()).toEqual([
      "access.smi-spec.io:traffictargets",
      "networking.istio.io:virtualservices,destinationrules,serviceentries,gateways",
      "security.istio.io:authorizationpolicies,peerauthentications",
      "specs.smi-spec.io:httproutegroups",
      "split.smi-spec.io:trafficsplits",
    ]);
    expect(clusterRules.flatMap((r) => r.resources)).not.toContain("secrets");
    const deployment = objects.find((o) => o.kind === "Deployment") as unknown as { spec: { replicas: number; template: { spec: { securityContext: Record<string, unknown>; containers: { securityContext: Record<string, unknown>; readinessProbe: unknown; livenessProbe: unknown; resources: unknown }[] } } } };
    expect(deployment.spec.replicas).toBe(2);
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.containers[0]?.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(pod.containers[0]?.readinessProbe).toBeDefined();
    expect(pod.containers[0]?.resources).toBeDefined();
  });

  it("renders objects a real apiserver accepts (server-side dry run)", async () => {
    const objects = renderChart({ ...VALUES, "networkPolicy.enabled": "true" }, JWKS) as Obj[];
    await cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: AGENT_NS } });
    const paths: Record<string, string> = {
      ClusterRole: "/apis/rbac.authorization.k8s.io/v1/clusterroles",
      ClusterRoleBinding: "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings",
      Role: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AGENT_NS}/roles`,
      RoleBinding: `/apis/rbac.authorization.k8s.io/v1/namespaces/${AGENT_NS}/rolebindings`,
      Deployment: `/apis/apps/v1/namespaces/${AGENT_NS}/deployments`,
      PodDisruptionBudget: `/apis/policy/v1/namespaces/${AGENT_NS}/poddisruptionbudgets`,
      NetworkPolicy: `/apis/networking.k8s.io/v1/namespaces/${AGENT_NS}/networkpolicies`,
      ServiceAccount: `/api/v1/namespaces/${AGENT_NS}/serviceaccounts`,
    };
    for (const obj of objects) {
      const res = await cluster.request("POST", `${paths[obj.kind] ?? pathOf(obj)}?dryRun=All&fieldValidation=Strict`, obj);
      expect(res.status, `${obj.kind} ${obj.metadata.name}: ${JSON.stringify(res.body)}`).toBe(201);
    }
  });
});
