import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

const json = async <T>(res: Response): Promise<T> => (await res.json()) as T;

describe("tenants", () => {
  it("the operator creates, lists, reads and deletes a tenant, and deletion removes everything", async () => {
    const created = await cp.request("POST", "/v1/tenants", { token: cp.operatorToken, body: { name: "shortlived" } });
    expect(created.status).toBe(201);
    const { adminToken } = await json<{ adminToken: string }>(created);
    expect(adminToken).toMatch(/^mpt_/);
    expect((await cp.request("POST", "/v1/tenants", { token: cp.operatorToken, body: { name: "shortlived" } })).status).toBe(409);

    const list = await json<{ items: { id: string }[] }>(await cp.request("GET", "/v1/tenants", { token: cp.operatorToken }));
    expect(list.items.map((t) => t.id)).toContain("shortlived");
    expect((await cp.request("GET", "/v1/tenants/shortlived", { token: cp.operatorToken })).status).toBe(200);

    expect((await cp.request("POST", "/v1/trafficpolicies", { token: adminToken, body: trafficPolicy("p") })).status).toBe(201);
    const cluster = await json<{ bootstrapToken: string }>(await cp.request("POST", "/v1/clusters", { token: adminToken, body: { name: "c1" } }));
    await cp.store.discovered.replace("shortlived", "c1", { meshes: [], workloads: [], destinations: [] });

    expect((await cp.request("DELETE", "/v1/tenants/shortlived", { token: cp.operatorToken })).status).toBe(204);
    expect((await cp.request("GET", "/v1/tenants/shortlived", { token: cp.operatorToken })).status).toBe(404);
    expect((await cp.request("GET", "/v1/trafficpolicies", { token: adminToken })).status).toBe(401);
    expect((await cp.request("DELETE", "/v1/tenants/shortlived", { token: cp.operatorToken })).status).toBe(404);
    expect(cluster.bootstrapToken).toMatch(/^mpb_/);
    // Nothing of the tenant is left in the table, not even its credential lookups.
    const { ScanCommand } = await import("@aws-sdk/lib-dynamodb");
    const { createDocumentClient } = await import("../../functions/store/client");
    const { inject } = await import("vitest");
    const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
    const items = (await doc.send(new ScanCommand({ TableName: cp.table }))).Items ?? [];
    expect(items.filter((i) => JSON.stringify(i).includes("shortlived"))).toEqual([]);
    expect(items.filter((i) => String(i.PK).startsWith("TOKEN#") && i.kind === "tenant")).toEqual([]);
  });

  it("rejects a bad tenant name", async () => {
    const res = await cp.request("POST", "/v1/tenants", { token: cp.operatorToken, body: { name: "Not OK" } });
    expect(res.status).toBe(400);
    expect((await json<{ errors: { path: string }[] }>(res)).errors[0]?.path).toBe("name");
  });
});

describe("tokens", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await cp.tenant("tokens");
  });

  it("shows a secret once, lists without secrets, records last use and revokes", async () => {
    const created = await json<{ id: string; token: string; role: string; expiresAt: string }>(
      await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "ci", role: "editor", expiresAt: "2030-01-01T00:00:00Z" } }),
    );
    expect(created.token).toMatch(/^mpt_[A-Za-z0-9_-]{43}$/);
    expect(created.expiresAt).toBe("2030-01-01T00:00:00.000Z");
    expect((await cp.request("GET", "/v1/trafficpolicies", { token: created.token })).status).toBe(200);

    const listText = await (await cp.request("GET", "/v1/tokens", { token: admin })).text();
    expect(listText).not.toContain(created.token);
    expect(listText).not.toContain("hash");
    const listed = (JSON.parse(listText) as { items: { id: string; lastUsedAt?: string; role: string }[] }).items.find((t) => t.id === created.id);
    expect(listed?.role).toBe("editor");
    expect(listed?.lastUsedAt).toBeDefined();

    expect((await cp.request("DELETE", `/v1/tokens/${created.id}`, { token: admin })).status).toBe(204);
    expect((await cp.request("GET", "/v1/trafficpolicies", { token: created.token })).status).toBe(401);
    expect((await cp.request("DELETE", `/v1/tokens/${created.id}`, { token: admin })).status).toBe(404);
  });

  it.each([
    [{ name: "x", role: "root" }, "role"],
    [{ name: "x", role: "viewer", expiresAt: "tomorrow" }, "expiresAt"],
    [{ name: "x", role: "viewer", expiresAt: "2001-01-01T00:00:00Z" }, "expiresAt"],
    [{ name: "x", role: "viewer", ttlDays: 0 }, "ttlDays"],
    [{ name: "x", role: "viewer", secret: "mine" }, "secret"],
  ])("rejects %j naming %s", async (body, path) => {
    const res = await cp.request("POST", "/v1/tokens", { token: admin, body });
    expect(res.status).toBe(400);
    expect((await json<{ errors: { path: string }[] }>(res)).errors.map((e) => e.path)).toContain(path);
  });

  it("never writes a secret to the logs", async () => {
    const created = await json<{ token: string }>(await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "logcheck", role: "viewer" } }));
    await cp.request("GET", "/v1/clusters", { token: created.token });
    const all = cp.logs.join("\n");
    expect(all).not.toContain(created.token);
    expect(all).not.toContain(admin);
    expect(all).not.toContain(cp.operatorToken);
  });
});

describe("clusters", () => {
  let admin: string;
  beforeAll(async () => {
    admin = await cp.tenant("clusters");
    await cp.jobs();
  });

  it("registers with a one-time bootstrap token and a helm line, lists, rotates and deregisters", async () => {
    const res = await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "cluster-1", labels: { env: "prod" } } });
    expect(res.status).toBe(201);
    const reg = await json<{ cluster: { name: string; state: string }; bootstrapToken: string; expiresAt: string; helmInstall: string }>(res);
    expect(reg.cluster).toMatchObject({ name: "cluster-1", state: "pending" });
    expect(Date.parse(reg.expiresAt) - Date.now()).toBeGreaterThan(23 * 3_600_000);
    expect(reg.helmInstall).toContain(`--set cluster.name=cluster-1`);
    expect(reg.helmInstall).toContain(`--set-string bootstrap.token=${reg.bootstrapToken}`);
    expect(reg.helmInstall).toContain(`--set controlPlane.url=${cp.url}`);
    expect(reg.helmInstall).toContain(`--set-json 'trust.jwks=${JSON.stringify(await cp.signer.jwks())}'`);
    expect((await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "cluster-1" } })).status).toBe(409);

    const listed = await json<{ items: { name: string; labels: unknown }[] }>(await cp.request("GET", "/v1/clusters", { token: admin }));
    expect(listed.items).toMatchObject([{ name: "cluster-1", labels: { env: "prod" } }]);
    expect(JSON.stringify(listed)).not.toContain(reg.bootstrapToken);

    const rotated = await json<{ bootstrapToken: string }>(await cp.request("POST", "/v1/clusters/cluster-1/bootstrap-token", { token: admin }));
    expect(rotated.bootstrapToken).not.toBe(reg.bootstrapToken);

    await cp.store.discovered.replace("clusters", "cluster-1", { meshes: [], workloads: [], destinations: [] });
    expect((await cp.request("DELETE", "/v1/clusters/cluster-1", { token: admin })).status).toBe(204);
    expect((await cp.request("GET", "/v1/clusters/cluster-1", { token: admin })).status).toBe(404);
    expect((await cp.request("DELETE", "/v1/clusters/cluster-1", { token: admin })).status).toBe(404);
    expect((await cp.jobs()).map((j) => j.body)).toEqual([
      { tenantId: "clusters", revision: 1 },
      { tenantId: "clusters", revision: 2 },
    ]);
  });
});
