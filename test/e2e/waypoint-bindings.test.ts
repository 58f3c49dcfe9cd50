import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type LabAgent, eventually, startLabAgent } from "./lab-agents";

/**
 * Waypoints on demand end to end (docs/ambient.md#waypoints-on-demand, docs/agent.md#waypoint-bindings):
 * the real agent under the chart's RBAC and admission policy, a lab kube-apiserver seeded with the
 * ambient fixture whose Service web has no waypoint, and the control plane on DynamoDB Local and the
 * SQS emulator. A TrafficPolicy on web in a mesh whose VirtualMesh sets routing.waypoints ON_DEMAND
 * makes the agent create the meshplane-waypoint Gateway and bind web to it; hand edits, deletion
 * and a Gateway of that name the user owns follow as the docs say.
 */
let cp: ControlPlane;
let admin: string;
let agent: LabAgent;
let poller: { stop: () => Promise<void> };

const CLUSTER = "cluster-waypoints";
const MESH = `istiod-istio--system-${CLUSTER}`;
const LABEL = "istio.io/use-waypoint";
const MANAGER = "meshplane-waypoint-binding";
const SERVICES = "/api/v1/namespaces/shop/services";
const GATEWAY = "/apis/gateway.networking.k8s.io/v1/namespaces/shop/gateways/meshplane-waypoint";
const APPLY = "application/apply-patch+yaml";
const MERGE = "application/merge-patch+json";

interface Service {
  metadata: {
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion: string;
    managedFields?: { manager: string; operation: string; fieldsV1: unknown }[];
  };
  spec: Record<string, unknown>;
}
interface Status {
  state: string;
  errors?: string[];
  clusters?: Record<string, { applied: boolean; errors?: string[] }>;
}

const webTimeout = {
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name: "web-timeout" },
  spec: {
    destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: CLUSTER, namespace: "shop", name: "web" }] } }],
    policy: { requestTimeout: "2s" },
  },
};

const web = async () => (await agent.cluster.request<Service>("GET", `${SERVICES}/web`)).body;
const status = async () => ((await (await cp.request("GET", "/v1/trafficpolicies/web-timeout", { token: admin })).json()) as { status: Status }).status;
/** The policy's status once it is `state` and the agent's report of this cluster's objects passes `check`. */
const statusWhen = (what: string, state: string, check: (cluster: { applied: boolean; errors: string[] }) => boolean) =>
  eventually(
    what,
    async () => {
      const s = await status();
      const cluster = s.clusters?.[CLUSTER];
      return s.state === state && cluster !== undefined && check({ applied: cluster.applied, errors: cluster.errors ?? [] }) ? s : undefined;
    },
    45_000,
  );
const applied = (cluster: { applied: boolean; errors: string[] }) => cluster.applied && cluster.errors.length === 0;

beforeAll(async () => {
  // The ambient fixture with web's binding to the user's waypoint left out: an ambient Service without one.
  const fixture = join(mkdtempSync(join(tmpdir(), "waypoint-bindings-")), "istio-ambient-unbound.yaml");
  const text = readFileSync(join(FIXTURES, "istio-ambient.yaml"), "utf8");
  const unbound = text.replace(`    app: web\n    ${LABEL}: waypoint\n`, "    app: web\n");
  if (unbound === text) throw new Error("the fixture's web Service no longer carries its binding");
  writeFileSync(fixture, unbound);
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("e2e-waypoints");
  agent = await startLabAgent(cp, admin, CLUSTER, fixture);
}, 1_800_000);

afterAll(async () => {
  await poller?.stop();
  await agent?.stop();
  await cp?.stop();
});

/** A request with the agent's own token (as its ServiceAccount). */
const asAgent = (method: string, url: string, body: unknown, contentType = APPLY) => agent.cluster.request(method, url, body, agent.token, { contentType });
const refusal = (res: { status: number; body: { message?: string } }) => `${res.status} ${res.body.message ?? ""}`;

// docs/agent.md#waypoint-bindings: RBAC lets the agent patch Services; the chart's
// ValidatingAdmissionPolicy holds that patch to the binding labels, for the agent's identity alone.
describe("the chart's admission policy, for the agent's own identity", () => {
  const path = "/api/v1/namespaces/probe/services/probe";
  // `force`: the agent never forces, but what it may change is the policy's to say, not the field owners'.
  const apply = (metadata: Record<string, unknown>, spec?: Record<string, unknown>, force = false) =>
    asAgent("PATCH", `${path}?fieldManager=${MANAGER}${force ? "&force=true" : ""}`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "probe", namespace: "probe", ...metadata },
      ...(spec ? { spec } : {}),
    });

  beforeAll(async () => {
    await agent.cluster.request("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "probe" } });
    const created = await agent.cluster.request("POST", "/api/v1/namespaces/probe/services", {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "probe", namespace: "probe", labels: { team: "probe" }, annotations: { owner: "team-probe" } },
      spec: { ports: [{ name: "http", port: 80 }] },
    });
    expect(created.status).toBe(201);
    // The apiserver loads admission policies through an informer (refreshed each second): wait for it.
    await eventually("the admission policy in effect", async () => ((await apply({ labels: { other: "x" } })).status === 422 ? true : undefined));
  });

  it("lets the agent add, change and remove istio.io/use-waypoint and istio.io/global, and nothing else changes", async () => {
    const steps: [Record<string, string>, Record<string, string>][] = [
      [{ [LABEL]: "w1" }, { team: "probe", [LABEL]: "w1" }],
      [
        { [LABEL]: "w2", "istio.io/global": "true" },
        { team: "probe", [LABEL]: "w2", "istio.io/global": "true" },
      ],
      [{ "istio.io/global": "true" }, { team: "probe", "istio.io/global": "true" }],
      [{}, { team: "probe" }],
    ];
    for (const [labels, expected] of steps) {
      const res = await apply({ labels });
      expect(res.status, refusal(res)).toBe(200);
      expect(res.body.metadata?.labels).toEqual(expected);
      expect(res.body.metadata?.annotations).toEqual({ owner: "team-probe" });
    }
  });

  it("refuses the agent a change to the spec, another label, an annotation or a finalizer", async () => {
    const before = (await agent.cluster.request<Service>("GET", path)).body;
    const attempts = [
      ["another label", await apply({ labels: { other: "x" } }), "may change only the labels istio.io/use-waypoint and istio.io/global"],
      ["another label's value", await apply({ labels: { team: "mine" } }, undefined, true), "may change only the labels"],
      ["an annotation", await apply({ annotations: { owner: "meshplane" } }, undefined, true), "may not change a Service's annotations"],
      ["a finalizer", await apply({ finalizers: ["example.com/hold"] }), "may not change a Service's annotations, owners or finalizers"],
      [
        "the spec",
        await apply(
          {},
          {
            ports: [
              { name: "http", port: 80 },
              { name: "admin", port: 81 },
            ],
          },
          true,
        ),
        "may not change a Service's spec",
      ],
      ["the spec, merge patch", await asAgent("PATCH", path, { spec: { type: "NodePort" } }, MERGE), "may not change a Service's spec"],
    ] as const;
    for (const [what, res, message] of attempts) {
      expect(res.status, `${what}: ${refusal(res)}`).toBe(422);
      expect(res.body.message, what).toContain("ValidatingAdmissionPolicy");
      expect(res.body.message, what).toContain(message);
    }
    const after = (await agent.cluster.request<Service>("GET", path)).body;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it("never lets the agent create or delete a Service", async () => {
    const missing = "/api/v1/namespaces/probe/services/made";
    // A server-side apply to a missing Service is a create: a valid one is refused by RBAC (the chart grants no create) ...
    const valid = await asAgent("PATCH", `${missing}?fieldManager=${MANAGER}`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "made", namespace: "probe", labels: { [LABEL]: "w1" } },
      spec: { type: "ExternalName", externalName: "example.com" },
    });
    expect(valid.status, refusal(valid)).toBe(403);
    // ... and the binding alone is no valid Service (no ports), refused before it.
    const bare = await asAgent("PATCH", `${missing}?fieldManager=${MANAGER}`, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "made", namespace: "probe", labels: { [LABEL]: "w1" } },
    });
    expect(bare.status, refusal(bare)).toBeGreaterThanOrEqual(400);
    const posted = await asAgent(
      "POST",
      "/api/v1/namespaces/probe/services",
      { apiVersion: "v1", kind: "Service", metadata: { name: "made" } },
      "application/json",
    );
    expect(posted.status, refusal(posted)).toBe(403);
    expect((await agent.cluster.request("GET", missing)).status).toBe(404);
    const deleted = await asAgent("DELETE", path, undefined, "application/json");
    expect(deleted.status, refusal(deleted)).toBe(403);
    expect((await agent.cluster.request("GET", path)).status).toBe(200);
  });

  it("leaves every other identity alone", async () => {
    const labelled = await agent.cluster.request("PATCH", path, { metadata: { labels: { other: "y" }, annotations: { owner: "someone" } } }, undefined, {
      contentType: MERGE,
    });
    expect(labelled.status, refusal(labelled)).toBe(200);
    const spec = await agent.cluster.request("PATCH", path, { spec: { ports: [{ name: "http", port: 8080 }] } }, undefined, { contentType: MERGE });
    expect(spec.status, refusal(spec)).toBe(200);
  });
});

describe("a policy on an ambient Service without a waypoint, in an ON_DEMAND mesh", () => {
  let original: Service;

  it("makes the agent create the meshplane-waypoint Gateway and bind the Service with that label alone, under its own manager", async () => {
    original = await web();
    expect(original.metadata.labels).toEqual({ app: "web" });
    const documents = [
      {
        apiVersion: "meshplane.dev/v1",
        kind: "VirtualMesh",
        metadata: { name: "waypoints" },
        spec: { meshes: [{ name: MESH }], routing: { waypoints: "ON_DEMAND" } },
      },
      webTimeout,
    ];
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents } })).status).toBe(200);
    const bound = await eventually("web bound to meshplane-waypoint", async () => {
      const s = await web();
      return s.metadata.labels?.[LABEL] === "meshplane-waypoint" ? s : undefined;
    });
    expect(bound.metadata.labels).toEqual({ app: "web", [LABEL]: "meshplane-waypoint" });
    expect(bound.spec).toEqual(original.spec);
    expect(bound.metadata.managedFields?.filter((f) => f.manager === MANAGER)).toEqual([
      expect.objectContaining({ operation: "Apply", fieldsV1: { "f:metadata": { "f:labels": { [`f:${LABEL}`]: {} } } } }),
    ]);
    const gateway = (await agent.cluster.request<{ metadata: { annotations: Record<string, string> }; spec: unknown }>("GET", GATEWAY)).body;
    expect(gateway.spec).toEqual({
      gatewayClassName: "istio-waypoint",
      listeners: [{ name: "mesh", port: 15008, protocol: "HBONE", allowedRoutes: expect.anything() }],
    });
    expect(gateway.metadata.annotations["meshplane.dev/waypoint-services"]).toBe('["web"]');
    await statusWhen("the policy applied", "ACCEPTED", applied);
  });

  it("keeps a label changed by hand, and says how to let meshplane bind the Service again", async () => {
    const edited = await agent.cluster.request(
      "PATCH",
      `${SERVICES}/web?fieldManager=kubectl-label`,
      { metadata: { labels: { [LABEL]: "my-waypoint" } } },
      undefined,
      {
        contentType: MERGE,
      },
    );
    expect(edited.status).toBe(200);
    // The agent binds on each snapshot and each resync (10 s here): it meets the hand edit there.
    const failed = await statusWhen("the binding's conflict in the status", "FAILED", ({ errors }) => errors.some((e) => e.includes(LABEL)));
    expect(failed.clusters?.[CLUSTER]?.errors).toEqual([
      expect.stringMatching(
        /bind Service shop\/web to waypoint meshplane-waypoint: .*does not overwrite it: remove the label \(kubectl label service -n shop web istio\.io\/use-waypoint-\) and meshplane binds the Service again/,
      ),
    ]);
    expect((await web()).metadata.labels).toEqual({ app: "web", [LABEL]: "my-waypoint" });

    // As the status says: the label removed, meshplane binds the Service again.
    const removed = await agent.cluster.request("PATCH", `${SERVICES}/web?fieldManager=kubectl-label`, { metadata: { labels: { [LABEL]: null } } }, undefined, {
      contentType: MERGE,
    });
    expect(removed.status).toBe(200);
    await eventually("web bound again", async () => ((await web()).metadata.labels?.[LABEL] === "meshplane-waypoint" ? true : undefined), 45_000);
    await statusWhen("the policy applied again", "ACCEPTED", applied);
  });

  it("releases the binding and prunes the Gateway when the policy goes, leaving the user's labels and the Service", async () => {
    const own = await agent.cluster.request("PATCH", `${SERVICES}/web?fieldManager=kubectl-label`, { metadata: { labels: { team: "shop" } } }, undefined, {
      contentType: MERGE,
    });
    expect(own.status).toBe(200);
    expect((await cp.request("DELETE", "/v1/trafficpolicies/web-timeout", { token: admin })).status).toBe(200);
    await eventually("the Gateway pruned", async () => ((await agent.cluster.request("GET", GATEWAY)).status === 404 ? true : undefined));
    const released = await eventually("web released", async () => {
      const s = await web();
      return s.metadata.labels?.[LABEL] === undefined ? s : undefined;
    });
    expect(released.metadata.labels).toEqual({ app: "web", team: "shop" });
    expect(released.spec).toEqual(original.spec);
    expect(released.metadata.managedFields?.some((f) => f.manager === MANAGER)).toBe(false);
  });

  it("never overwrites a Gateway of that name the user owns, and the status says so", async () => {
    const theirs = {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { name: "meshplane-waypoint", namespace: "shop", labels: { team: "shop" } },
      spec: { gatewayClassName: "istio-waypoint", listeners: [{ name: "mesh", port: 15008, protocol: "HBONE" }] },
    };
    const created = await agent.cluster.request("POST", "/apis/gateway.networking.k8s.io/v1/namespaces/shop/gateways", theirs);
    expect(created.status).toBe(201);
    const before = (await agent.cluster.request<Service>("GET", GATEWAY)).body;
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [webTimeout] } })).status).toBe(200);
    const failed = await statusWhen("the Gateway's refusal in the status", "FAILED", ({ errors }) => errors.length > 0);
    expect(failed.clusters?.[CLUSTER]?.errors).toEqual([expect.stringContaining("is not meshplane's")]);
    const after = (await agent.cluster.request<Service>("GET", GATEWAY)).body;
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.annotations).toBeUndefined();
    expect((await web()).metadata.labels).toEqual({ app: "web", team: "shop" });
  });
});
