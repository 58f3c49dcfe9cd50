import { randomUUID } from "node:crypto";
import { type CryptoKey, type JWK, SignJWT, calculateJwkThumbprint } from "jose";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { queryKeys } from "../../functions/store/batch";
import { createDocumentClient } from "../../functions/store/client";
import { clusterPk } from "../../functions/store/keys";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { agentKey, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane } from "../support/control-plane";

let cp: ControlPlane;
let keyA: { privateKey: CryptoKey; publicJwk: JWK };
let kidA: string;
let kidB: string;

beforeAll(async () => {
  cp = await startControlPlane();
  const admin = await cp.tenant("agents");
  const adminOther = await cp.tenant("other");
  const a = await registeredAgent(cp, admin, "agents", "cluster-a");
  const b = await registeredAgent(cp, admin, "agents", "cluster-b");
  await registeredAgent(cp, adminOther, "other", "cluster-x");
  keyA = a.key;
  kidA = await calculateJwkThumbprint(a.key.publicJwk);
  kidB = await calculateJwkThumbprint(b.key.publicJwk);
  await a.client.discovery(discoveryOf("istio-bookinfo", "cluster-a"));
});
afterAll(() => cp.stop());

interface Claims {
  tenant?: string;
  sub?: string;
  aud?: string;
  iat?: number;
  exp?: number;
  jti?: string;
  kid?: string;
  key?: CryptoKey;
  htm?: "GET" | "POST";
}

async function jwt(c: Claims = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const iat = c.iat ?? now;
  return new SignJWT({ tenant: c.tenant ?? "agents", ...(c.htm ? { htm: c.htm } : {}) })
    .setProtectedHeader({ alg: "ES256", kid: c.kid ?? kidA })
    .setIssuer("agent")
    .setSubject(c.sub ?? "cluster-a")
    .setAudience(c.aud ?? cp.url)
    .setIssuedAt(iat)
    .setExpirationTime(c.exp ?? iat + 60)
    .setJti(c.jti ?? randomUUID())
    .sign(c.key ?? keyA.privateKey);
}

/** What an attacker's request could have changed: the head item and what is discovered. */
async function state(): Promise<unknown> {
  return {
    heads: [await cp.store.snapshots.head("agents", "cluster-a", true), await cp.store.snapshots.head("other", "cluster-x", true)],
    discovered: await cp.store.discovered.list("agents", ["cluster-a", "cluster-b"], "Destination"),
    other: await cp.store.discovered.list("other", ["cluster-x"], "Destination"),
  };
}

const post = (token: string | undefined, body: unknown) =>
  fetch(`${cp.url}/v1/agent/discovery`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe("agent credentials", () => {
  const tenMinutesAgo = Math.floor(Date.now() / 1000) - 600;
  it.each<[string, () => Promise<string | undefined>]>([
    ["no token", async () => undefined],
    ["an API token instead of an agent JWT", async () => "mpt_averyvalidlookingtokenvalue0000000000000"],
    ["expired", async () => jwt({ iat: tenMinutesAgo, exp: tenMinutesAgo + 60 })],
    ["longer than 5 minutes", async () => jwt({ exp: Math.floor(Date.now() / 1000) + 600 })],
    ["wrong audience", async () => jwt({ aud: "https://elsewhere.example.com" })],
    ["another cluster of the same tenant named with this key", async () => jwt({ sub: "cluster-b" })],
    ["signed by another cluster's key (its kid, this key)", async () => jwt({ sub: "cluster-b", kid: kidB })],
    ["tenant A's agent asking for tenant B's cluster", async () => jwt({ tenant: "other", sub: "cluster-x" })],
    ["a forged key the control plane never saw", async () => jwt({ key: (await agentKey()).privateKey })],
    ["an unknown tenant", async () => jwt({ tenant: "nobody" })],
  ])("%s → 401, nothing changed", async (_what, token) => {
    const before = await state();
    const body = discoveryOf("istio-revision-eastwest", "cluster-a");
    const t = await token();
    expect((await post(t, body)).status).toBe(401);
    const snap = await fetch(`${cp.url}/v1/agent/snapshot`, { headers: t ? { authorization: `Bearer ${t}` } : {} });
    expect(snap.status).toBe(401);
    expect(await state()).toEqual(before);
  });

  it("a jti is accepted once", async () => {
    const token = await jwt();
    expect((await fetch(`${cp.url}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${token}` } })).status).not.toBe(401);
    const before = await state();
    expect((await post(token, discoveryOf("istio-revision-eastwest", "cluster-a"))).status).toBe(401);
    expect(await state()).toEqual(before);
    const write = await jwt({ htm: "POST" });
    expect((await post(write, discoveryOf("istio-revision-eastwest", "cluster-a"))).status).toBe(202);
    expect((await post(write, discoveryOf("istio-revision-eastwest", "cluster-a"))).status).toBe(401);
  });

  it("a token bound to GET reads without a replay record, and can never be spent on a write", async () => {
    // The replay records (J#<jti>) in the cluster's partition, read straight from the table.
    const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
    const jtis = async () => (await queryKeys(doc, cp.table, clusterPk("agents", "cluster-a"), "J#")).length;
    const read = await jwt({ htm: "GET" });
    const recorded = await jtis();
    for (let i = 0; i < 3; i++) expect((await fetch(`${cp.url}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${read}` } })).status).not.toBe(401);
    expect(await jtis()).toBe(recorded);
    const before = await state();
    const res = await post(read, discoveryOf("istio-revision-eastwest", "cluster-a"));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { detail: string }).detail).toContain("the token is for GET, not POST");
    expect(await state()).toEqual(before);
    // And a token bound to POST is no read token.
    expect((await fetch(`${cp.url}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${await jwt({ htm: "POST" })}` } })).status).toBe(401);
  });

  it("a bootstrap token works once and not after it expired", async () => {
    const admin = await cp.tenant("boot");
    const res = await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "c1" } });
    const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
    const first = await agentKey();
    expect(await ControlPlaneClient.register(cp.url, bootstrapToken, first.publicJwk, "test")).toEqual({
      tenant: "boot",
      cluster: "c1",
      incarnation: expect.any(String),
    });
    const thief = await agentKey();
    await expect(ControlPlaneClient.register(cp.url, bootstrapToken, thief.publicJwk, "test")).rejects.toMatchObject({ status: 401 });
    expect((await cp.store.snapshots.head("boot", "c1", true))?.agentKid).toBe(await calculateJwkThumbprint(first.publicJwk));

    const late = (await (await cp.request("POST", "/v1/clusters", { token: admin, body: { name: "c2" } })).json()) as { bootstrapToken: string };
    cp.clock.now = new Date(Date.now() + 25 * 3_600_000);
    try {
      await expect(ControlPlaneClient.register(cp.url, late.bootstrapToken, thief.publicJwk, "test")).rejects.toMatchObject({ status: 401 });
    } finally {
      cp.clock.now = new Date();
    }
    expect((await cp.store.snapshots.head("boot", "c2", true))?.agentKey).toBeUndefined();
  });

  it("a registration body with a private key or a bad token is a 400", async () => {
    const key = await agentKey();
    const res = await fetch(`${cp.url}/v1/agent/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bootstrapToken: "mpb_x", publicKey: { ...key.publicJwk, d: "secret" }, agentVersion: "1" }),
    });
    expect(res.status).toBe(400);
    const paths = ((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(["bootstrapToken", "publicKey.d"]));
  });
});

describe("discovery reports", () => {
  // The status comes second so the title prints it (a function in its place printed NaN).
  it.each<[string, number, () => unknown, string | undefined]>([
    ["malformed", 400, () => ({ meshes: "none", workloads: [], destinations: [], hash: "x" }), "meshes"],
    ["unknown field", 400, () => ({ ...discoveryOf("istio-bookinfo", "cluster-a"), pods: [] }), "pods"],
    ["objects of another cluster", 400, () => discoveryOf("istio-bookinfo", "cluster-b"), "meshes[0].metadata.cluster"],
    ["over 5 MiB", 413, () => ({ ...discoveryOf("istio-bookinfo", "cluster-a"), hash: "x".repeat(6 * 1024 * 1024) }), undefined],
  ])("%s → %i, nothing stored", async (_what, status, body, path) => {
    const before = await state();
    const res = await post(await jwt(), body());
    expect(res.status).toBe(status);
    if (path) expect(((await res.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toContain(path);
    expect(await state()).toEqual(before);
  });
});

describe("status reports", () => {
  it("a report with thousands of long failures is stored within one item, the first failures kept and counted", async () => {
    const admin = await cp.tenant("reports");
    const agent = await registeredAgent(cp, admin, "reports", "big");
    const results = Array.from({ length: 3000 }, (_, i) => ({
      apiVersion: "networking.istio.io/v1",
      kind: "VirtualService",
      namespace: "ns",
      name: `vs-${i}`,
      state: "failed" as const,
      error: "x".repeat(300),
    }));
    expect((await agent.client.status({ generation: 0, results })).changed).toBe(true);
    const stored = (await cp.store.agents.reports("reports", ["big"])).get("big");
    expect(stored?.failures).toHaveLength(200);
    expect(stored?.failureCount).toBe(3000);
  });
});
