import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../functions/shared/logger";
import { createWorker } from "../../functions/translation/batch";
import { startPoller } from "../../functions/translation/poller";
import { FIXTURES } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";
import { type KubeObject, readings } from "../gitops/verdicts";
import { gitopsStory } from "../lab/gitops-story";
import { type LabAgent, eventually as waitFor, startLabAgent } from "./lab-agents";

/**
 * Policies from Git end to end (docs/gitops.md#the-agent): two lab kube-apiservers with the chart's
 * CustomResourceDefinitions and RBAC (`authoring.enabled`), their agents syncing the custom resources
 * to the control plane on DynamoDB Local and the SQS emulator. A TrafficPolicy created in east is
 * stored as `<name>.<namespace>.east` with its source, reaches both clusters' snapshots and turns
 * Ready; edits, renames and deletions converge; refusals (meshplane's validation, the grant) turn
 * Stalled with the field; two clusters' resources of one name are two; a resource deleted while its
 * agent is stopped stays until the agent deleted it; a flood of edits is sent a few times. The final
 * custom resources of each situation are saved to test/gitops/fixtures (when missing, or with
 * UPDATE_GOLDEN=1) for the Argo CD and kstatus tests.
 */
let cp: ControlPlane;
let admin: string;
let east: LabAgent;
let west: LabAgent;
let poller: { stop: () => Promise<void> };

const NS = "bookinfo";
/** Polls until `check` answers, for at most 20 s unless told (a failure names what it waited for, within the test's time). */
const eventually = <T>(what: string, check: () => Promise<T | undefined>, ms = 20_000) => waitFor(what, check, ms);
const MERGE = "application/merge-patch+json";
const GITOPS_FIXTURES = resolve(import.meta.dirname, "../gitops/fixtures");
const ARGS = ["--poll-interval=1", "--poll-jitter=0", "--resync-interval=10", "--authoring=true", "--authoring-status-every=1", "--authoring-sync-every=10"];

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  observedGeneration: number;
}
interface Cr {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid: string; generation: number; finalizers?: string[]; deletionTimestamp?: string; managedFields?: unknown };
  spec: Record<string, unknown>;
  status?: { observedGeneration?: number; conditions?: Condition[]; meshplane?: { name?: string; state?: string } };
}
interface Stored {
  metadata: { name: string; source?: { cluster: string; namespace: string; name: string; uid: string; generation: number } };
  spec: { policy?: { requestTimeout?: string } };
}

const crPath = (name = "") => `/apis/meshplane.dev/v1/namespaces/${NS}/trafficpolicies${name ? `/${name}` : ""}`;
const policy = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: "meshplane.dev/v1",
  kind: "TrafficPolicy",
  metadata: { name, namespace: NS },
  spec,
});
const onApp = (app: string, timeout: string) => ({
  destinationSelector: [{ kubeServiceMatcher: { namespaces: [NS], labels: { app } } }],
  policy: { requestTimeout: timeout },
});

async function create(agent: LabAgent, doc: ReturnType<typeof policy>): Promise<Cr> {
  const res = await agent.cluster.request<Cr>("POST", crPath(), doc);
  if (!res.ok) throw new Error(`create ${doc.metadata.name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const get = async (agent: LabAgent, name: string) => {
  const res = await agent.cluster.request<Cr>("GET", crPath(name));
  return res.status === 200 ? res.body : undefined;
};
const remove = (agent: LabAgent, name: string) => agent.cluster.request("DELETE", crPath(name));
const edit = (agent: LabAgent, name: string, spec: Record<string, unknown>) =>
  agent.cluster.request<Cr>("PATCH", crPath(name), { spec }, undefined, { contentType: MERGE });
const condition = (cr: Cr | undefined, type: string) => cr?.status?.conditions?.find((c) => c.type === type);
const stored = async (name: string) => {
  const res = await cp.request("GET", `/v1/trafficpolicies/${name}`, { token: admin });
  return res.status === 200 ? ((await res.json()) as Stored) : res.status === 404 ? null : undefined;
};
const vsTimeout = async (agent: LabAgent, service: string) => {
  const res = await agent.cluster.request<{ spec: { http: { timeout?: string }[] } }>(
    "GET",
    `/apis/networking.istio.io/v1/namespaces/${NS}/virtualservices/${service}`,
  );
  return res.status === 200 ? (res.body.spec.http.find((r) => r.timeout)?.timeout ?? "none") : res.status === 404 ? "absent" : undefined;
};

/** Waits until `name` in `agent`'s cluster has a status whose Ready condition is `status` for its generation. */
const settled = (agent: LabAgent, name: string, status: string, reason?: string, ms = 30_000) =>
  eventually(
    `${name} in ${agent.name}: Ready ${status}${reason ? ` (${reason})` : ""}`,
    async () => {
      const cr = await get(agent, name);
      const ready = condition(cr, "Ready");
      return cr && ready?.status === status && (reason === undefined || ready.reason === reason) && cr.status?.observedGeneration === cr.metadata.generation
        ? cr
        : undefined;
    },
    ms,
  );

/** Keeps the custom resource as `kubectl get -o json` prints it (without managedFields) for the health tests. */
/**
 * Argo CD's health check (the chart's Lua script in a Lua interpreter) and kstatus (its own Go library)
 * read a custom resource as the agent left it; each must give what docs/gitops.md's table says.
 */
function judged(cr: Cr, argo: string, kstatus: string): void {
  const [reading] = readings([cr as unknown as KubeObject]);
  expect({ argo: reading?.argo.status, kstatus: reading?.kstatus.status }).toEqual({ argo, kstatus });
  expect({ argo: reading?.argo.status, kstatus: reading?.kstatus.status }).toEqual({ argo: reading?.expected?.argo, kstatus: reading?.expected?.kstatus });
}

/** Judges `cr` (judged) and keeps it as a fixture of test/gitops when missing or with UPDATE_GOLDEN=1. */
function saveFixture(file: string, cr: Cr, argo: string, kstatus: string): void {
  judged(cr, argo, kstatus);
  const path = join(GITOPS_FIXTURES, file);
  if (existsSync(path) && process.env.UPDATE_GOLDEN !== "1") return;
  mkdirSync(GITOPS_FIXTURES, { recursive: true });
  const { managedFields: _, ...metadata } = cr.metadata;
  writeFileSync(path, `${JSON.stringify({ ...cr, metadata }, null, 2)}\n`);
}

const submitted = async (agent: LabAgent) => Number(/^meshplane_agent_authoring_submitted_total (\d+)$/m.exec(await agent.metrics())?.[1] ?? Number.NaN);

beforeAll(async () => {
  cp = await startControlPlane();
  poller = startPoller({ sqs: cp.sqs, queueUrl: cp.queueUrl, handler: createWorker(cp.worker), log: createLogger({}, () => undefined), waitSeconds: 1 });
  admin = await cp.tenant("e2e-authoring");
  const fixture = join(FIXTURES, "istio-bookinfo.yaml");
  const chart = { values: { "authoring.enabled": "true" } };
  [east, west] = await Promise.all([startLabAgent(cp, admin, "east", fixture, ARGS, chart), startLabAgent(cp, admin, "west", fixture, ARGS, chart)]);
  await eventually(
    "both clusters discovered",
    async () => {
      const items = ((await (await cp.request("GET", "/v1/meshes", { token: admin })).json()) as { items: unknown[] }).items;
      return items.length === 2 ? true : undefined;
    },
    60_000,
  );
}, 300_000);

afterAll(async () => {
  await poller?.stop();
  await Promise.all([east, west].map((a) => a?.stop()));
  await cp?.stop();
});

describe("custom resources authored in a cluster", () => {
  it("the lab's story: kubectl apply into east configures both clusters and turns Ready; kubectl delete removes it everywhere", async () => {
    const said: string[] = [];
    const { storedName } = await gitopsStory({
      cp,
      admin,
      author: east,
      other: west,
      namespace: NS,
      services: [
        { cluster: "east", namespace: NS, name: "reviews" },
        { cluster: "west", namespace: NS, name: "ratings" },
      ],
      say: (t) => said.push(t),
    });
    expect(storedName).toBe("lab-timeout.bookinfo.east");
    expect(said.join("\n")).toMatch(/Ready True \(Accepted: applied in east, west\)/);
  }, 90_000);

  it("a policy selecting another cluster's service is Stalled OutsideGrant, naming the field, until the grant is widened", async () => {
    await create(
      east,
      policy("to-west", {
        destinationSelector: [{ kubeServiceRefs: { services: [{ cluster: "west", namespace: NS, name: "ratings" }] } }],
        policy: { requestTimeout: "2s" },
      }),
    );
    const refused = await settled(east, "to-west", "False", "OutsideGrant");
    expect(condition(refused, "Stalled")).toMatchObject({ status: "True", reason: "OutsideGrant" });
    // Named as a field of the custom resource, not of the request that carried it.
    expect(condition(refused, "Ready")?.message).toMatch(/^spec.destinationSelector\[0\].kubeServiceRefs.services\[0\].cluster: /);
    expect(await stored("to-west.bookinfo.east")).toBeNull();
    saveFixture("stalled-outside-grant.json", refused, "Degraded", "Failed");
    // A tenant admin lets east reach west: the agent looks at refusals again at its next sync.
    const grant = await cp.request("PUT", "/v1/clusters/east/authoring", {
      token: admin,
      body: { kinds: ["TrafficPolicy", "AccessPolicy"], clusters: ["east", "west"] },
    });
    expect(grant.status).toBeLessThan(300);
    await settled(east, "to-west", "True", "Accepted", 40_000);
    expect(await remove(east, "to-west")).toMatchObject({ ok: true });
    await eventually("to-west gone", async () =>
      (await get(east, "to-west")) === undefined && (await stored("to-west.bookinfo.east")) === null ? true : undefined,
    );
  }, 60_000);

  it("is stored as <name>.<namespace>.<cluster> with its source, reaches both clusters and turns Ready; an edit converges", async () => {
    const cr = await create(east, policy("reviews-timeout", onApp("reviews", "3s")));
    const held = await eventually("stored", async () => (await stored("reviews-timeout.bookinfo.east")) ?? undefined);
    expect(held.metadata.source).toEqual({ cluster: "east", namespace: NS, name: "reviews-timeout", uid: cr.metadata.uid, generation: 1 });
    for (const agent of [east, west])
      await eventually(`timeout in ${agent.name}`, async () => ((await vsTimeout(agent, "reviews")) === "3s" ? true : undefined));
    const ready = await settled(east, "reviews-timeout", "True", "Accepted");
    expect(ready.metadata.finalizers).toContain("meshplane.dev/authored");
    expect(ready.status).toMatchObject({ observedGeneration: 1, meshplane: { name: "reviews-timeout.bookinfo.east", state: "ACCEPTED" } });
    expect(condition(ready, "Ready")?.message).toMatch(/applied in east, west/);
    saveFixture("ready.json", ready, "Healthy", "Current");

    expect((await edit(east, "reviews-timeout", onApp("reviews", "4s"))).body.metadata.generation).toBe(2);
    for (const agent of [east, west])
      await eventually(`new timeout in ${agent.name}`, async () => ((await vsTimeout(agent, "reviews")) === "4s" ? true : undefined));
    const edited = await settled(east, "reviews-timeout", "True");
    expect(condition(edited, "Ready")?.observedGeneration).toBe(2);
    expect((await stored("reviews-timeout.bookinfo.east"))?.metadata.source?.generation).toBe(2);
  }, 60_000);

  it("a rename (delete and create) converges with the old one gone; a deletion removes it everywhere and the finalizer goes", async () => {
    await remove(east, "reviews-timeout");
    await create(east, policy("reviews-timeout-v2", onApp("reviews", "6s")));
    await eventually("the old name gone", async () =>
      (await stored("reviews-timeout.bookinfo.east")) === null && (await get(east, "reviews-timeout")) === undefined ? true : undefined,
    );
    for (const agent of [east, west])
      await eventually(`the renamed one in ${agent.name}`, async () => ((await vsTimeout(agent, "reviews")) === "6s" ? true : undefined));
    await settled(east, "reviews-timeout-v2", "True", "Accepted");

    await remove(east, "reviews-timeout-v2");
    await eventually("the custom resource gone", async () => ((await get(east, "reviews-timeout-v2")) === undefined ? true : undefined));
    expect(await stored("reviews-timeout-v2.bookinfo.east")).toBeNull();
    for (const agent of [east, west])
      await eventually(`no timeout in ${agent.name}`, async () => ((await vsTimeout(agent, "reviews")) === "absent" ? true : undefined));
  }, 60_000);

  it("a resource the API server takes but meshplane does not is Stalled Invalid, naming the field", async () => {
    await create(east, policy("bad-regex", { httpRequestMatchers: [{ uri: { regex: "^/(?=api)" } }], policy: { requestTimeout: "5s" } }));
    const invalid = await settled(east, "bad-regex", "False", "Invalid");
    expect(condition(invalid, "Stalled")).toMatchObject({ status: "True", reason: "Invalid" });
    expect(condition(invalid, "Ready")?.message).toMatch(/httpRequestMatchers\[0\]\.uri/);
    saveFixture("stalled-invalid.json", invalid, "Degraded", "Failed");
    await remove(east, "bad-regex");
  }, 30_000);

  it("two clusters authoring one namespace and name hold two resources; one is Applying while the other cluster's agent is stopped", async () => {
    await create(west, policy("shared", onApp("productpage", "2s")));
    west.process.kill("SIGSTOP");
    try {
      await create(east, policy("shared", onApp("ratings", "2s")));
      const applying = await settled(east, "shared", "False", "Applying");
      expect(condition(applying, "Reconciling")).toMatchObject({ status: "True", reason: "Applying", message: expect.stringContaining("west") });
      saveFixture("reconciling.json", applying, "Progressing", "InProgress");
    } finally {
      west.process.kill("SIGCONT");
    }
    await settled(east, "shared", "True", "Accepted");
    await settled(west, "shared", "True", "Accepted");
    expect((await stored("shared.bookinfo.east"))?.metadata.source?.cluster).toBe("east");
    expect((await stored("shared.bookinfo.west"))?.metadata.source?.cluster).toBe("west");
  }, 60_000);

  it("a resource deleted while its agent is stopped stays until the agent deleted it in the control plane", async () => {
    east.process.kill("SIGSTOP");
    try {
      await remove(east, "shared");
      await new Promise((r) => setTimeout(r, 1500));
      const held = await get(east, "shared");
      expect(held?.metadata.deletionTimestamp).toBeDefined();
      expect(held?.metadata.finalizers).toEqual(["meshplane.dev/authored"]);
      expect(await stored("shared.bookinfo.east")).not.toBeNull();
    } finally {
      east.process.kill("SIGCONT");
    }
    await eventually("deleted everywhere", async () =>
      (await get(east, "shared")) === undefined && (await stored("shared.bookinfo.east")) === null ? true : undefined,
    );
    expect((await stored("shared.bookinfo.west"))?.metadata.source?.cluster).toBe("west");
  }, 30_000);

  it("a flood of edits converges on the last one with far fewer submissions", async () => {
    await create(east, policy("flood", onApp("details", "1s")));
    await settled(east, "flood", "True", "Accepted");
    const before = await submitted(east);
    for (let i = 2; i <= 101; i++) await edit(east, "flood", onApp("details", `${i}s`));
    const last = await settled(east, "flood", "True", "Accepted");
    expect(last.metadata.generation).toBe(101);
    expect((await stored("flood.bookinfo.east"))?.spec.policy?.requestTimeout).toBe("101s");
    await eventually("the last timeout in west", async () => ((await vsTimeout(west, "details")) === "101s" ? true : undefined));
    const sent = (await submitted(east)) - before;
    console.log(`authoring flood: 100 edits, ${sent} submissions`);
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(10);
  }, 60_000);
});
