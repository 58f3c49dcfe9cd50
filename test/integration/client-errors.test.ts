/**
 * A shared service one client cannot break: client input that used to produce a 500, write contention
 * that used to answer 409, the admin lock-out nobody could undo, and the smaller holes of the agent
 * protocol — each against the real API on DynamoDB Local.
 */
import { calculateJwkThumbprint } from "jose";
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDocumentClient } from "../../functions/store/client";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { keys } from "../../functions/store/keys";
import { agentKey, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("acme");
});
afterAll(() => cp.stop());

async function problemOf(res: Response): Promise<{ status: number; detail?: string; errors?: { path: string; message: string }[] }> {
  return (await res.json()) as never;
}

const yaml = (text: string) => ({ raw: text, headers: { "content-type": "application/yaml" } });

describe("client input is a 4xx, never a 500", () => {
  const unresolved = "apiVersion: meshplane.dev/v1\nkind: TrafficPolicy\nmetadata: {name: a}\nspec: {policy: *nothing}\n";
  const laughs = `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: [${Array(101).fill("*a").join(", ")}]\n`;

  it.each([
    ["/v1/apply", "an alias to no anchor", unresolved, /Unresolved alias/],
    ["/v1/plan", "an alias to no anchor", unresolved, /Unresolved alias/],
    ["/v1/apply", "more than 100 aliases", laughs, /alias count/i],
    ["/v1/plan", "more than 100 aliases", laughs, /alias count/i],
  ])("%s with %s: 400 naming the document, nothing stored", async (path, _, body, message) => {
    const before = (await cp.store.tenants.get("acme")).revision;
    const res = await cp.request("POST", path, { token: admin, ...yaml(`---\n{}\n---\n${body}`) });
    expect(res.status).toBe(400);
    const problem = await problemOf(res);
    expect(problem.errors?.[0]?.path).toBe("documents[1]");
    expect(problem.errors?.[0]?.message).toMatch(message);
    expect((await cp.store.tenants.get("acme")).revision).toBe(before);
  });

  it("a resource under the 1 MiB body limit but over what one stored item holds: 413 naming the field", async () => {
    const matchers = Array.from({ length: 2500 }, (_, i) => ({ headers: [{ name: `x-header-${i}`, value: "v".repeat(120) }] }));
    const doc = trafficPolicy("huge", { httpRequestMatchers: matchers, policy: { requestTimeout: "1s" } });
    expect(JSON.stringify(doc).length).toBeLessThan(1024 * 1024);
    const before = (await cp.store.tenants.get("acme")).revision;
    const res = await cp.request("POST", "/v1/trafficpolicies", { token: admin, body: doc });
    expect(res.status).toBe(413);
    expect((await problemOf(res)).detail).toMatch(/spec\.httpRequestMatchers alone is \d+ KiB/);
    expect((await cp.request("GET", "/v1/trafficpolicies/huge", { token: admin })).status).toBe(404);
    expect((await cp.store.tenants.get("acme")).revision).toBe(before);
  });
});

describe("writes to one tenant do not contend", () => {
  it("50 concurrent creates of different policies all answer 201", async () => {
    const token = await cp.tenant("busy");
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy(`p-${i}`, { policy: { requestTimeout: "1s" } }) }).then((r) => r.status),
      ),
    );
    expect(statuses).toEqual(Array(50).fill(201));
    const list = (await (await cp.request("GET", "/v1/trafficpolicies", { token })).json()) as { items: unknown[] };
    expect(list.items).toHaveLength(50);
    expect((await cp.store.tenants.get("busy")).revision).toBe(50);
  });
});

async function createToken(token: string, role = "admin", extra: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const res = await cp.request("POST", "/v1/tokens", { token, body: { name: `t-${Math.random().toString(36).slice(2, 8)}`, role, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; token: string };
}
async function idOf(token: string): Promise<string> {
  const items = ((await (await cp.request("GET", "/v1/tokens", { token })).json()) as { items: { id: string; lastUsedAt?: string }[] }).items;
  const used = items.find((t) => t.lastUsedAt !== undefined);
  if (used === undefined) throw new Error("no used token");
  return used.id;
}

describe("admin tokens cannot lock a tenant out", () => {
  it("the last valid admin token cannot be revoked (409), another admin's can", async () => {
    const first = await cp.tenant("lockout");
    const firstId = await idOf(first);
    const res = await cp.request("DELETE", `/v1/tokens/${firstId}`, { token: first });
    expect(res.status).toBe(409);
    expect((await problemOf(res)).detail).toMatch(/last valid admin token/);
    // An editor or an expired admin does not count as a way back in.
    await createToken(first, "editor");
    const second = await createToken(first, "admin", { ttlDays: 1 });
    cp.clock.now = new Date(Date.now() + 2 * 86_400_000);
    try {
      expect((await cp.request("DELETE", `/v1/tokens/${firstId}`, { token: first })).status).toBe(409);
    } finally {
      cp.clock.now = new Date();
    }
    expect((await cp.request("DELETE", `/v1/tokens/${firstId}`, { token: second.token })).status).toBe(204);
    expect((await cp.request("GET", "/v1/tokens", { token: first })).status).toBe(401);
    expect((await cp.request("DELETE", `/v1/tokens/${second.id}`, { token: second.token })).status).toBe(409);
  });

  it("two admins revoking each other at once: exactly one succeeds", async () => {
    const first = await cp.tenant("duel");
    const second = await createToken(first);
    const firstId = await idOf(first);
    const statuses = await Promise.all([
      cp.request("DELETE", `/v1/tokens/${second.id}`, { token: first }).then((r) => r.status),
      cp.request("DELETE", `/v1/tokens/${firstId}`, { token: second.token }).then((r) => r.status),
    ]);
    expect(statuses.sort()).toEqual([204, 409]);
    const alive = await Promise.all([first, second.token].map((t) => cp.request("GET", "/v1/tokens", { token: t }).then((r) => r.status)));
    expect(alive.sort()).toEqual([200, 401]);
  });

  it("the operator can mint an admin token for a locked-out tenant, and it is audited", async () => {
    const first = await cp.tenant("recover");
    const second = await createToken(first, "admin");
    await cp.request("DELETE", `/v1/tokens/${await idOf(first)}`, { token: second.token });
    // The remaining admin token expires: nobody in the tenant can manage tokens now.
    cp.logs.length = 0;
    expect((await cp.request("POST", "/v1/tenants/recover/tokens", { token: admin, body: { name: "x", role: "admin" } })).status).toBe(403);
    const res = await cp.request("POST", "/v1/tenants/recover/tokens", { token: cp.operatorToken, body: { name: "recovery", role: "admin", ttlDays: 1 } });
    expect(res.status).toBe(201);
    const minted = (await res.json()) as { token: string; id: string };
    expect((await cp.request("GET", "/v1/tokens", { token: minted.token })).status).toBe(200);
    expect(cp.logs.some((l) => l.includes("audit: operator minted a tenant token") && l.includes(minted.id) && !l.includes(minted.token))).toBe(true);
    expect((await cp.request("POST", "/v1/tenants/nobody/tokens", { token: cp.operatorToken, body: { name: "x", role: "admin" } })).status).toBe(404);
  });

  it("expiresAt is bounded like ttlDays", async () => {
    const far = new Date(Date.now() + 3651 * 86_400_000).toISOString();
    const res = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "far", role: "viewer", expiresAt: far } });
    expect(res.status).toBe(400);
    expect((await problemOf(res)).errors?.[0]).toMatchObject({ path: "expiresAt", message: "must be at most 3650 days ahead" });
  });
});

describe("the agent protocol's smaller holes", () => {
  it("a public key that is not a P-256 point is a 400 and does not spend the bootstrap token", async () => {
    const res = await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "pointless" } });
    const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
    const key = await agentKey();
    const notOnCurve = { ...key.publicJwk, y: key.publicJwk.x };
    const bad = await fetch(`${cp.url}/v1/agent/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bootstrapToken, publicKey: notOnCurve, agentVersion: "1" }),
    });
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]).toMatchObject({ path: "publicKey", message: "is not a point on the P-256 curve" });
    expect(await ControlPlaneClient.register(cp.url, bootstrapToken, key.publicJwk, "test")).toMatchObject({ tenant: "acme", cluster: "pointless" });
    expect((await cp.store.snapshots.head("acme", "pointless", true))?.agentKid).toBe(await calculateJwkThumbprint(key.publicJwk));
  });

  it("a status report naming a generation never published is a 400 and stores nothing", async () => {
    const agent = await registeredAgent(cp, admin, "acme", "liar");
    await expect(agent.client.status({ generation: 7, results: [] })).rejects.toMatchObject({ status: 400 });
    expect((await cp.store.agents.reports("acme", ["liar"])).size).toBe(0);
    await agent.client.status({ generation: 0, results: [] });
    expect((await cp.store.agents.reports("acme", ["liar"])).get("liar")?.generation).toBe(0);
  });

  it("a discovery report racing a deregistration leaves nothing behind", async () => {
    const agent = await registeredAgent(cp, admin, "acme", "racing");
    const head = await cp.store.snapshots.head("acme", "racing", true);
    // The agent was authenticated (head read), then the deregistration marked the cluster.
    const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
    await doc.send(
      new UpdateCommand({
        TableName: cp.table,
        Key: keys.snapshotHead("acme", "racing"),
        UpdateExpression: "SET deregistering = :t",
        ExpressionAttributeValues: { ":t": true },
      }),
    );
    const report = discoveryOf("istio-bookinfo", "racing");
    await expect(cp.store.agents.recordDiscovery("acme", "racing", report, "h1", head)).rejects.toMatchObject({ name: "UnauthorizedError" });
    expect(await cp.store.discovered.list("acme", ["racing"], "Workload")).toEqual([]);
    // And the agent itself is now refused.
    await expect(agent.client.discovery(report)).rejects.toMatchObject({ status: 401 });
    expect(await cp.store.discovered.list("acme", ["racing"], "Workload")).toEqual([]);
  });

  it("`bearer` in lower case is as good as `Bearer`", async () => {
    const res = await fetch(`${cp.url}/v1/tokens`, { headers: { authorization: `bearer ${admin}` } });
    expect(res.status).toBe(200);
  });
});

describe("answers", () => {
  it("are never cached or sniffed; secrets included", async () => {
    const res = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "shown-once", role: "viewer" } });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const missing = await cp.request("GET", "/v1/nothing-here", { token: admin });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("an unknown method on a known path is a 405 with Allow", async () => {
    const res = await cp.request("PATCH", "/v1/trafficpolicies/x", { token: admin, body: {} });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("DELETE, GET, PUT");
    expect((await problemOf(res)).detail).toMatch(/PATCH is not allowed/);
    expect((await cp.request("PUT", "/v1/tokens", { token: admin, body: {} })).headers.get("allow")).toBe("GET, POST");
  });
});
