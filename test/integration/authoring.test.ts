/**
 * The control plane's side of resources authored in clusters (docs/gitops.md#the-agent-protocol),
 * through the real HTTP app on DynamoDB Local and the SQS emulator, with agents registered as the
 * in-cluster agent registers and their own signed credentials: submit, delete at a uid, sync, the
 * statuses read back, the API's refusals of writes to authored resources, and the budget of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

const GENEROUS = { limit: 1_000_000, windowMs: 10_000, lease: 100 };
const LIMITS = Object.fromEntries((["read", "write", "plan", "agent", "metrics", "authoring", "operator", "refused"] as const).map((cls) => [cls, GENEROUS]));

let cp: ControlPlane;
let admin: string;
let editor: string;
let east: ControlPlaneClient;
let west: ControlPlaneClient;
let uidSeq = 0;

/** A request of `agent` to an agent route, with a credential it signs for the method, as the agent does. */
async function agentCall(agent: ControlPlaneClient, method: "GET" | "POST", path: string, body?: unknown, plane = cp): Promise<Response> {
  return fetch(plane.url + path, {
    method,
    headers: { authorization: `Bearer ${await agent.token(method)}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
}

/** A custom resource as the agent sends it: where it is in its cluster, and its document. */
function item(document: { kind: string; metadata: { name: string } }, namespace = "bookinfo", uid = `uid-${++uidSeq}`, generation = 1) {
  return { source: { namespace, name: document.metadata.name, uid, generation }, document };
}

async function submit(agent: ControlPlaneClient, items: unknown[]) {
  const res = await agentCall(agent, "POST", "/v1/agent/resources", { items });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { results: Record<string, unknown>[] }).results;
}

async function authoredList(agent: ControlPlaneClient, query = "") {
  const res = await agentCall(agent, "GET", `/v1/agent/resources${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as {
    items: { kind: string; name: string; generation: number; source: Record<string, unknown>; status: Record<string, unknown> }[];
    continue?: string;
  };
}

const stored = (kind: string, name: string) => cp.store.resources.getMany("gitops", [{ kind: kind as "TrafficPolicy", name }]).then((r) => r[0]);

beforeAll(async () => {
  cp = await startControlPlane({ limits: LIMITS });
  admin = await cp.tenant("gitops");
  const token = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "ci", role: "editor" } });
  editor = ((await token.json()) as { token: string }).token;
  east = (await registeredAgent(cp, admin, "gitops", "east")).client;
  west = (await registeredAgent(cp, admin, "gitops", "west")).client;
  await east.discovery(discoveryOf("istio-bookinfo", "east"));
  await west.discovery(discoveryOf("istio-bookinfo", "west"));
  await cp.work();
});
afterAll(() => cp.stop());

describe("submitting custom resources", () => {
  it("stores each under <name>.<namespace>.<cluster> with metadata.source, and translates it", async () => {
    const results = await submit(east, [item(trafficPolicy("cart-retries", {}, { team: "shop" }), "bookinfo", "uid-cart", 3)]);
    expect(results).toEqual([{ outcome: "stored", name: "cart-retries.bookinfo.east", generation: 1, action: "created" }]);
    const resource = await stored("TrafficPolicy", "cart-retries.bookinfo.east");
    expect(resource?.metadata.source).toEqual({ cluster: "east", namespace: "bookinfo", name: "cart-retries", uid: "uid-cart", generation: 3 });
    expect(resource?.metadata.labels).toEqual({ team: "shop" });
    const jobs = await cp.work();
    expect(jobs.handled).toBeGreaterThan(0);
    expect((await stored("TrafficPolicy", "cart-retries.bookinfo.east"))?.status.observedGeneration).toBe(1);
    // The API shows it, with where it came from.
    const got = await cp.request("GET", "/v1/trafficpolicies/cart-retries.bookinfo.east", { token: editor });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { metadata: { source: unknown } }).metadata.source).toMatchObject({ cluster: "east", uid: "uid-cart" });
  });

  it("answers unchanged for the same document again, and replaces it under a new uid or generation", async () => {
    const same = await submit(east, [item(trafficPolicy("cart-retries", {}, { team: "shop" }), "bookinfo", "uid-cart", 3)]);
    expect(same).toEqual([{ outcome: "stored", name: "cart-retries.bookinfo.east", generation: 1, action: "unchanged" }]);
    const edited = await submit(east, [item(trafficPolicy("cart-retries", { policy: { requestTimeout: "7s" } }), "bookinfo", "uid-cart2", 1)]);
    expect(edited).toEqual([{ outcome: "stored", name: "cart-retries.bookinfo.east", generation: 2, action: "configured" }]);
    expect((await stored("TrafficPolicy", "cart-retries.bookinfo.east"))?.metadata.source?.uid).toBe("uid-cart2");
  });

  it("takes an older generation of the same custom resource, arriving late, as changing nothing", async () => {
    const newer = await submit(east, [item(trafficPolicy("cart-retries", { policy: { requestTimeout: "7s" } }), "bookinfo", "uid-cart2", 5)]);
    expect(newer).toEqual([{ outcome: "stored", name: "cart-retries.bookinfo.east", generation: 2, action: "configured" }]);
    const late = await submit(east, [item(trafficPolicy("cart-retries", { policy: { requestTimeout: "1s" } }), "bookinfo", "uid-cart2", 4)]);
    expect(late).toEqual([{ outcome: "stored", name: "cart-retries.bookinfo.east", generation: 2, action: "unchanged" }]);
    const resource = await stored("TrafficPolicy", "cart-retries.bookinfo.east");
    expect(resource?.metadata.source?.generation).toBe(5);
    expect(resource?.spec).toMatchObject({ policy: { requestTimeout: "7s" } });
  });

  it("refuses one document too big to store, and stores the others of the submit", async () => {
    const big = trafficPolicy("big");
    const oversize = { ...big, metadata: { ...big.metadata, annotations: { note: "x".repeat(310 * 1024) } } };
    const results = await submit(east, [item(oversize), item(trafficPolicy("small"))]);
    expect(results[0]).toMatchObject({ outcome: "refused", reason: "Invalid", errors: [{ path: "items[0].document" }] });
    expect(results[1]).toMatchObject({ outcome: "stored", name: "small.bookinfo.east" });
    expect(await stored("TrafficPolicy", "big.bookinfo.east")).toBeUndefined();
    await agentCall(east, "POST", "/v1/agent/resources/delete", {
      items: [
        { kind: "TrafficPolicy", namespace: "bookinfo", name: "small", uid: (await stored("TrafficPolicy", "small.bookinfo.east"))?.metadata.source?.uid },
      ],
    });
  });

  it("keeps two clusters' resources of the same namespace and name apart, and an API resource of the name untouched", async () => {
    const created = await cp.request("POST", "/v1/trafficpolicies", { token: editor, body: trafficPolicy("shared") });
    expect(created.status).toBe(201);
    const before = await stored("TrafficPolicy", "shared");
    expect((await submit(east, [item(trafficPolicy("shared"))]))[0]).toMatchObject({ outcome: "stored", name: "shared.bookinfo.east" });
    expect((await submit(west, [item(trafficPolicy("shared"))]))[0]).toMatchObject({ outcome: "stored", name: "shared.bookinfo.west" });
    expect((await stored("TrafficPolicy", "shared.bookinfo.east"))?.metadata.source?.cluster).toBe("east");
    expect((await stored("TrafficPolicy", "shared.bookinfo.west"))?.metadata.source?.cluster).toBe("west");
    expect(await stored("TrafficPolicy", "shared")).toEqual(before);
  });

  it("refuses, per item, what meshplane's validation or the cluster's grant does not allow; stores the rest", async () => {
    const bad = trafficPolicy("bad-timeout", { policy: { requestTimeout: "soon" } });
    const elsewhere = trafficPolicy("elsewhere", { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["bookinfo"], clusters: ["west"] } }] });
    const results = await submit(east, [item(bad), item(elsewhere), item(virtualMesh("mesh-from-git")), item(trafficPolicy("fine"))]);
    expect(results[0]).toMatchObject({ outcome: "refused", reason: "Invalid" });
    expect(((results[0]?.errors ?? []) as { path: string }[]).map((e) => e.path)).toContain("items[0].document.spec.policy.requestTimeout");
    expect(results[1]).toMatchObject({
      outcome: "refused",
      reason: "OutsideGrant",
      errors: [{ path: "items[1].document.spec.destinationSelector[0].kubeServiceMatcher.clusters[0]" }],
    });
    expect(results[2]).toMatchObject({ outcome: "refused", reason: "OutsideGrant", errors: [{ path: "items[2].document.kind" }] });
    expect(results[3]).toMatchObject({ outcome: "stored", name: "fine.bookinfo.east" });
    expect(await stored("TrafficPolicy", "bad-timeout.bookinfo.east")).toBeUndefined();
    expect(await stored("TrafficPolicy", "elsewhere.bookinfo.east")).toBeUndefined();
    expect(await stored("VirtualMesh", "mesh-from-git.bookinfo.east")).toBeUndefined();
  });

  it("refuses a document whose name is not its custom resource's", async () => {
    const [result] = await submit(east, [{ source: { namespace: "bookinfo", name: "one", uid: "u-1", generation: 1 }, document: trafficPolicy("two") }]);
    expect(result).toMatchObject({ outcome: "refused", reason: "Invalid", errors: [{ path: "items[0].document.metadata.name" }] });
  });

  it.each<[string, unknown, string]>([
    ["an unknown field", { items: [item(trafficPolicy("x"))], cluster: "west" }, "cluster"],
    ["a kind that is not authored", { items: [{ ...item(trafficPolicy("x")), document: { ...trafficPolicy("x"), kind: "Mesh" } }] }, "items[0].document.kind"],
    ["more items than a batch holds", { items: Array.from({ length: 51 }, (_, i) => item(trafficPolicy(`n${i}`))) }, "items"],
    [
      "a source naming its cluster",
      { items: [{ ...item(trafficPolicy("x")), source: { ...item(trafficPolicy("x")).source, cluster: "west" } }] },
      "items[0].source.cluster",
    ],
  ])("refuses a malformed body, %s, naming the field, and stores nothing", async (_what, body, path) => {
    const before = await cp.store.resources.authored("gitops", "east");
    const res = await agentCall(east, "POST", "/v1/agent/resources", body);
    expect(res.status).toBe(400);
    const problem = (await res.json()) as { errors: { path: string }[] };
    expect(problem.errors.map((e) => e.path)).toContain(path);
    expect(await cp.store.resources.authored("gitops", "east")).toEqual(before);
  });
});

describe("reading back, deleting and syncing", () => {
  it("lists only the agent's own cluster's resources, with statuses, a page at a time", async () => {
    const all = (await authoredList(east)).items;
    expect(all.map((r) => r.name).sort()).toEqual(["cart-retries.bookinfo.east", "fine.bookinfo.east", "shared.bookinfo.east"]);
    expect(all.every((r) => r.source.cluster === "east" && r.status !== undefined)).toBe(true);
    expect((await authoredList(west)).items.map((r) => r.name)).toEqual(["shared.bookinfo.west"]);
    const first = await authoredList(east, "?limit=2");
    expect(first.items).toHaveLength(2);
    const rest = await authoredList(east, `?limit=2&continue=${first.continue}`);
    expect([...first.items, ...rest.items].map((r) => r.name)).toEqual(all.map((r) => r.name));
    expect(rest.continue).toBeUndefined();
  });

  it("deletes only at the uid it holds: deleted, kept, absent", async () => {
    const res = await agentCall(east, "POST", "/v1/agent/resources/delete", {
      items: [
        { kind: "TrafficPolicy", namespace: "bookinfo", name: "cart-retries", uid: "uid-cart" },
        { kind: "TrafficPolicy", namespace: "bookinfo", name: "fine", uid: (await stored("TrafficPolicy", "fine.bookinfo.east"))?.metadata.source?.uid },
        { kind: "TrafficPolicy", namespace: "bookinfo", name: "never", uid: "u-0" },
      ],
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: unknown[] }).results).toEqual([{ outcome: "kept" }, { outcome: "deleted" }, { outcome: "absent" }]);
    expect(await stored("TrafficPolicy", "cart-retries.bookinfo.east")).toBeDefined();
    expect(await stored("TrafficPolicy", "fine.bookinfo.east")).toBeUndefined();
    // West's resource of a name east also used is west's alone.
    const westOnly = await agentCall(east, "POST", "/v1/agent/resources/delete", {
      items: [
        { kind: "TrafficPolicy", namespace: "bookinfo", name: "shared", uid: (await stored("TrafficPolicy", "shared.bookinfo.west"))?.metadata.source?.uid },
      ],
    });
    expect(((await westOnly.json()) as { results: unknown[] }).results).toEqual([{ outcome: "kept" }]);
    expect(await stored("TrafficPolicy", "shared.bookinfo.west")).toBeDefined();
  });

  it("sync deletes this cluster's resources that are no longer present, and nothing of another cluster's", async () => {
    await submit(east, [item(trafficPolicy("gone-a")), item(trafficPolicy("gone-b"))]);
    const keep = await stored("TrafficPolicy", "cart-retries.bookinfo.east");
    const res = await agentCall(east, "POST", "/v1/agent/resources/sync", {
      present: [{ kind: "TrafficPolicy", namespace: "bookinfo", name: "cart-retries", uid: keep?.metadata.source?.uid }],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: 3 });
    expect((await authoredList(east)).items.map((r) => r.name)).toEqual(["cart-retries.bookinfo.east"]);
    expect((await authoredList(west)).items.map((r) => r.name)).toEqual(["shared.bookinfo.west"]);
    expect(await stored("TrafficPolicy", "shared")).toBeDefined();
    expect(await cp.store.resources.authoredCount("gitops", "east")).toBe(1);
  });
});

describe("authored resources through the API", () => {
  it("refuses a replace (409) naming the custom resource to change", async () => {
    const current = await cp.request("GET", "/v1/trafficpolicies/cart-retries.bookinfo.east", { token: editor });
    const body = (await current.json()) as Record<string, unknown>;
    const res = await cp.request("PUT", "/v1/trafficpolicies/cart-retries.bookinfo.east", { token: admin, body });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toContain("TrafficPolicy bookinfo/cart-retries in cluster east");
  });

  it("says whose a dotted name is when a read-back document is applied", async () => {
    const res = await cp.request("POST", "/v1/apply", { token: editor, body: { documents: [trafficPolicy("cart-retries.bookinfo.east")] } });
    expect(res.status).toBe(400);
    const { errors } = (await res.json()) as { errors: { path: string; message: string }[] };
    expect(errors.find((e) => e.path === "documents[0].metadata.name")?.message).toContain(
      "custom resource TrafficPolicy bookinfo/cart-retries in cluster east",
    );
  });

  it("lets only an admin delete one (403 for an editor, saying why)", async () => {
    const refused = await cp.request("DELETE", "/v1/trafficpolicies/cart-retries.bookinfo.east", { token: editor });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { detail: string }).detail).toContain("only a tenant admin");
    expect(await stored("TrafficPolicy", "cart-retries.bookinfo.east")).toBeDefined();
    const deleted = await cp.request("DELETE", "/v1/trafficpolicies/cart-retries.bookinfo.east", { token: admin });
    expect(deleted.status).toBe(200);
    expect(await stored("TrafficPolicy", "cart-retries.bookinfo.east")).toBeUndefined();
    expect(await cp.store.resources.authoredCount("gitops", "east")).toBe(0);
  });
});

describe("the authoring budget", () => {
  it("answers 429 with Retry-After beyond it, and leaves the agent's other requests their own budget", async () => {
    const plane = await startControlPlane({ limits: { ...LIMITS, authoring: { limit: 3, windowMs: 60_000, burst: 3, lease: 1 } } });
    try {
      const token = await plane.tenant("budget");
      const agent = (await registeredAgent(plane, token, "budget", "east")).client;
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await agentCall(agent, "GET", "/v1/agent/resources", undefined, plane)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const over = await agentCall(agent, "POST", "/v1/agent/resources", { items: [item(trafficPolicy("x"))] }, plane);
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await agent.discovery(discoveryOf("istio-bookinfo", "east"))).toEqual({ changed: true });
    } finally {
      await plane.stop();
    }
  });
});
