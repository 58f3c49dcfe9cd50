/**
 * Who did what to a tenant's credentials: every token records who minted it (the operator or one of
 * the tenant's admin tokens), and deleting a tenant leaves an audit record — against the real API on
 * DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

interface Listed {
  id: string;
  name: string;
  createdBy?: { kind: string; tokenId?: string };
}

const listTokens = async (token: string): Promise<Listed[]> => ((await (await cp.request("GET", "/v1/tokens", { token })).json()) as { items: Listed[] }).items;

describe("who minted a token", () => {
  it("the first admin token and a recovery token are the operator's; a token an admin creates names that admin's token", async () => {
    const admin = await cp.tenant("minted");
    const [first] = await listTokens(admin);
    expect(first).toMatchObject({ name: "initial-admin", createdBy: { kind: "operator" } });

    const created = await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "ci", role: "viewer" } });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ name: "ci", createdBy: { kind: "tenant", tokenId: first?.id } });

    const recovery = await cp.request("POST", "/v1/tenants/minted/tokens", { token: cp.operatorToken, body: { name: "recovery", role: "admin", ttlDays: 1 } });
    expect(recovery.status).toBe(201);
    const recovered = (await recovery.json()) as { id: string; token: string; createdBy: unknown };
    expect(recovered.createdBy).toEqual({ kind: "operator" });

    // The listing, as an admin of the tenant sees it (here the operator-minted one), tells them apart.
    const listed = await listTokens(recovered.token);
    expect(listed.map((t) => [t.name, t.createdBy])).toEqual([
      ["initial-admin", { kind: "operator" }],
      ["ci", { kind: "tenant", tokenId: first?.id }],
      ["recovery", { kind: "operator" }],
    ]);
  });
});

describe("deleting a tenant", () => {
  it("writes one audit record naming who deleted which tenant and what went with it, and no secret", async () => {
    const admin = await cp.tenant("doomed");
    const extra = (await (await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "ci", role: "viewer" } })).json()) as { token: string };
    const cluster = (await (await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "east" } })).json()) as { bootstrapToken: string };
    cp.logs.length = 0;

    expect((await cp.request("DELETE", "/v1/tenants/doomed", { token: cp.operatorToken })).status).toBe(204);

    const audits = cp.logs.filter((l) => l.includes("audit: operator deleted a tenant"));
    expect(audits).toHaveLength(1);
    const record = JSON.parse(audits[0] as string) as Record<string, unknown>;
    expect(record).toMatchObject({ audit: true, tenantId: "doomed", operatorTokenId: "operator", tokens: 2, clusters: 1 });
    expect(record.items).toBeGreaterThanOrEqual(6);
    for (const secret of [admin, extra.token, cluster.bootstrapToken, cp.operatorToken]) expect(audits[0]).not.toContain(secret);
    expect((await cp.request("GET", "/v1/tokens", { token: admin })).status).toBe(401);
  });

  it("a tenant that does not exist is a 404 and no audit record", async () => {
    cp.logs.length = 0;
    expect((await cp.request("DELETE", "/v1/tenants/nobody", { token: cp.operatorToken })).status).toBe(404);
    expect(cp.logs.filter((l) => l.includes("audit: operator deleted a tenant"))).toEqual([]);
  });
});
