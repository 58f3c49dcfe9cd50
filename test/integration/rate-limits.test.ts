/**
 * Rate limits against the real API and DynamoDB Local: token buckets with a burst (a pipeline's 50
 * concurrent creates are served, a flood gets 429 with Retry-After), per tenant, per class and per
 * cluster; buckets shared by several API instances; an agent's unchanged poll that writes nothing; and
 * refused requests (401, 403) bounded per source and per credential without spending any tenant's budget.
 *
 * The API under test is an app of its own over the control plane's table, called as API Gateway calls
 * the Lambda (an event with the caller's `sourceIp`), through a DynamoDB client that counts what it sends.
 */
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { snapshotEtag } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApp } from "../../functions/http/app";
import { DEFAULT_LIMITS, type RateClass, type RateLimit, RateLimiter } from "../../functions/http/middleware/rate-limiter";
import { SqsTranslateQueue } from "../../functions/queue/translate-queue";
import { createLogger } from "../../functions/shared/logger";
import { createDocumentClient } from "../../functions/store/client";
import { createStore } from "../../functions/store/index";
import { tenantPk } from "../../functions/store/keys";
import { RateLimitStore } from "../../functions/store/rate-limits";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { agentKey } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

const API = "https://api.test";
const WRITES = ["PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem", "Put", "Update", "Delete", "TransactWrite", "BatchWrite"];
const READS = ["GetItem", "Query", "BatchGetItem", "Get", "BatchGet", "TransactGetItems"];

let cp: ControlPlane;
beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(() => cp.stop());

/** An API over the control plane's table with `limits` and clock, counting every DynamoDB operation it sends. */
function api(limits: Partial<Record<RateClass, RateLimit>>, now: () => Date = () => cp.clock.now) {
  const counts = new Map<string, number>();
  const doc = createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? "").replace(/Command$/, "");
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: "initialize", name: "opCounter" },
  );
  const store = createStore({ doc, table: cp.table, bootstrapTtlMs: 86_400_000 });
  const app = createApp({
    store,
    signer: cp.signer,
    queue: new SqsTranslateQueue({ region: "us-east-1", queueUrl: cp.queueUrl, endpoint: inject("sqsEndpoint") }),
    log: createLogger({}, () => undefined),
    authority: cp.worker.authority,
    csrSigner: {} as never,
    now,
    limits,
  });
  /** A request from `source`, as API Gateway hands it to the function. */
  const fetchFrom = (source: string) => (input: string | URL | Request, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request(input, init), { requestContext: { http: { sourceIp: source } } }));
  const call = (method: string, path: string, o: { token?: string; body?: unknown; source?: string } = {}) =>
    fetchFrom(o.source ?? "192.0.2.10")(`${API}${path}`, {
      method,
      headers: { ...(o.token ? { authorization: `Bearer ${o.token}` } : {}), ...(o.body ? { "content-type": "application/json" } : {}) },
      ...(o.body ? { body: JSON.stringify(o.body) } : {}),
    });
  const sum = (names: string[]) => names.reduce((n, name) => n + (counts.get(name) ?? 0), 0);
  return {
    store,
    call,
    fetchFrom,
    reset: () => counts.clear(),
    writes: () => sum(WRITES),
    reads: () => sum(READS),
    ops: () => [...counts.values()].reduce((a, b) => a + b, 0),
  };
}

/** Registers `cluster` in `tenant` and its agent with a fresh key; publishes one snapshot to be unchanged against. */
async function agent(plane: ReturnType<typeof api>, admin: string, tenant: string, cluster: string, source = "192.0.2.10") {
  const res = await cp.request("POST", "/v1/clusters", { token: admin, body: { name: cluster } });
  expect(res.status).toBe(201);
  const { bootstrapToken } = (await res.json()) as { bootstrapToken: string };
  const key = await agentKey();
  await ControlPlaneClient.register(API, bootstrapToken, key.publicJwk, "test", plane.fetchFrom(source) as typeof fetch);
  const hash = `sha256:${"0".repeat(64)}`;
  await cp.store.snapshots.write(
    tenant,
    cluster,
    undefined,
    { generation: 1, hash, signedAt: cp.clock.now.toISOString(), exp: Math.floor(cp.clock.now.getTime() / 1000) + 86_400 },
    Buffer.from("x"),
  );
  const client = new ControlPlaneClient({ url: API, tenant, cluster, key, now: () => cp.clock.now, fetch: plane.fetchFrom(source) as typeof fetch });
  const etag = snapshotEtag(1, hash);
  const poll = async () =>
    (await plane.fetchFrom(source)(`${API}/v1/agent/snapshot`, { headers: { authorization: `Bearer ${await client.token("GET")}`, "if-none-match": etag } }))
      .status;
  return { client, poll };
}

/** A tenant token nobody was ever given. */
const random = () => `mpt_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

const advance = (ms: number) => {
  cp.clock.now = new Date(cp.clock.now.getTime() + ms);
};

describe("budgets with a burst, at the shipped limits", () => {
  it("50 concurrent creates in one tenant are 50 × 201; a flood past the burst gets 429 with Retry-After, and the burst comes back", {
    timeout: 300_000,
  }, async () => {
    // The API's clock stands still, so nothing refills while the machine works: what is served is the burst.
    let now = new Date();
    const plane = api(DEFAULT_LIMITS, () => now);
    const token = await cp.tenant("pipeline");
    const create = (name: string) => plane.call("POST", "/v1/trafficpolicies", { token, body: trafficPolicy(name, { policy: { requestTimeout: "1s" } }) });
    const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => create(`p-${i}`)));
    expect(burst.map((r) => r.status)).toEqual(Array(50).fill(201));

    // 100 more at once: the bucket (60 at once, 10 a second) has 10 left and refuses the rest.
    const flood = await Promise.all(Array.from({ length: 100 }, (_, i) => create(`f-${i}`)));
    const codes = flood.map((r) => r.status);
    expect(codes.filter((s) => s === 201)).toHaveLength(10);
    expect(codes.filter((s) => s === 429)).toHaveLength(90);
    const refused = flood.find((r) => r.status === 429) as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/over the write rate limit \(600 requests per 60 s, 60 at once\)/);

    // Refilled at 10 a second: after 5 s, 50 more are served.
    now = new Date(now.getTime() + 5_000);
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => create(`q-${i}`)));
    expect(again.map((r) => r.status)).toEqual(Array(50).fill(201));
  });

  it("kinds of requests and tenants have their own buckets", async () => {
    const limits = { ...DEFAULT_LIMITS, read: { limit: 60, windowMs: 60_000, burst: 10, lease: 3 }, plan: { limit: 2, windowMs: 60_000, burst: 2, lease: 1 } };
    const plane = api(limits);
    const flooder = await cp.tenant("flooder");
    const neighbour = await cp.tenant("neighbour");
    const reads = await Promise.all(Array.from({ length: 30 }, () => plane.call("GET", "/v1/trafficpolicies", { token: flooder })));
    expect(reads.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(10);
    expect(reads.filter((r) => r.status === 200).length).toBeLessThanOrEqual(13);
    expect(reads.filter((r) => r.status === 429).length).toBe(30 - reads.filter((r) => r.status === 200).length);
    expect(
      (await plane.call("POST", "/v1/trafficpolicies", { token: flooder, body: trafficPolicy("still-writes", { policy: { requestTimeout: "1s" } }) })).status,
    ).toBe(201);
    const plan = () =>
      plane.call("POST", "/v1/plan", { token: flooder, body: { documents: [trafficPolicy("planned", { policy: { requestTimeout: "2s" } })] } });
    expect([(await plan()).status, (await plan()).status, (await plan()).status]).toEqual([200, 200, 429]);
    for (let i = 0; i < 10; i++) expect((await plane.call("GET", "/v1/trafficpolicies", { token: neighbour })).status).toBe(200);
  });
});

describe("token buckets in DynamoDB, shared by API instances", () => {
  it("together the instances serve the burst at once, then the rate, never more", async () => {
    const store = new RateLimitStore({ doc: createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") }), table: cp.table });
    const limit = { limit: 60, windowMs: 60_000, burst: 20, lease: 7 };
    let now = 1_700_000_000_000;
    const instances = Array.from(
      { length: 3 },
      () =>
        new RateLimiter(
          store,
          { read: limit, write: limit, plan: limit, agent: limit, metrics: limit, authoring: limit, operator: limit, refused: limit },
          () => now,
        ),
    );
    const take = (n: number) => Promise.all(Array.from({ length: n }, (_, i) => (instances[i % 3] as RateLimiter).take("T#shared", "read", "read")));
    const first = await take(120);
    expect(first.filter((r) => r === undefined)).toHaveLength(20);
    expect(first.filter((r) => r === 1)).toHaveLength(100); // one a second: Retry-After 1
    now += 5_000; // five requests' worth refilled
    expect((await take(60)).filter((r) => r === undefined)).toHaveLength(5);
    now += 3_600_000; // full again, never fuller
    expect((await take(60)).filter((r) => r === undefined)).toHaveLength(20);
  });

  it("a clock that steps back does not shut a budget for the length of the step", async () => {
    const store = new RateLimitStore({ doc: createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") }), table: cp.table });
    const limit = { limit: 60, windowMs: 60_000, burst: 20 };
    const at = 1_700_000_000_000;
    expect((await store.lease("T#stepped", "write", limit, 20, at + 20 * 60_000)).granted).toBe(20);
    // Twenty minutes earlier by the next instance's clock (a step back, or a far-off clock): served.
    expect(
      (
        await new RateLimitStore({ doc: createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") }), table: cp.table }).lease(
          "T#stepped",
          "write",
          limit,
          5,
          at,
        )
      ).granted,
    ).toBe(5);
    // A second's skew is no step: an instance a second behind the one that used the burst up gets nothing.
    expect((await store.lease("T#skew", "write", limit, 20, at + 1000)).granted).toBe(20);
    expect((await store.lease("T#skew", "write", limit, 1, at)).granted).toBe(0);
  });
});

describe("agents", () => {
  it("an unchanged poll costs one DynamoDB read and no write, at a 15 s poll and at a minute", async () => {
    const plane = api(DEFAULT_LIMITS);
    const admin = await cp.tenant("quiet");
    const a = await agent(plane, admin, "quiet", "c1");
    expect(await a.poll()).toBe(304); // the first records lastSeenAt (one write per 5 minutes)
    plane.reset();
    let polls = 0;
    for (const every of [15_000, 15_000, 15_000, 15_000, 15_000, 15_000, 61_000, 61_000]) {
      advance(every);
      expect(await a.poll()).toBe(304);
      polls++;
    }
    expect(plane.writes()).toBe(0);
    expect(plane.reads()).toBe(polls);
  });

  it("a flooding agent gets its free polls and its cluster's budget, then 429; another cluster does not notice", async () => {
    const plane = api({ ...DEFAULT_LIMITS, agent: { limit: 6, windowMs: 60_000, burst: 4, lease: 1 } });
    const admin = await cp.tenant("agents");
    const loud = await agent(plane, admin, "agents", "loud");
    const calm = await agent(plane, admin, "agents", "calm");
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push(await loud.poll());
    // Three free polls in this instance, four from the cluster's bucket.
    expect(codes).toEqual([...Array(7).fill(304), ...Array(5).fill(429)]);
    const status = await loud.client.status({ generation: 1, results: [] }).then(
      () => 202,
      (e: { status?: number }) => e.status,
    );
    expect(status).toBe(429);
    expect(await calm.poll()).toBe(304);
  });
});

describe("refused requests", () => {
  const limits = { ...DEFAULT_LIMITS, refused: { limit: 5, windowMs: 60_000, burst: 5, lease: 1 } };

  it("401s spend their source's refusal budget, never a tenant's; then the source is refused from memory, without a lookup", async () => {
    const plane = api(limits);
    const victim = await cp.tenant("victim");
    const attacker = "203.0.113.7";
    const codes: number[] = [];
    for (let i = 0; i < 5; i++) codes.push((await plane.call("GET", "/v1/trafficpolicies", { token: random(), source: attacker })).status);
    expect(codes).toEqual(Array(5).fill(401));
    plane.reset();
    const refused = await plane.call("GET", "/v1/trafficpolicies", { token: random(), source: attacker });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/too many refused requests/);
    expect(plane.ops()).toBe(0); // no credential lookup, no count
    // Requests without a credential, and forged agent JWTs, from there too.
    expect((await plane.call("GET", "/v1/trafficpolicies", { source: attacker })).status).toBe(429);
    // Elsewhere nothing changed, and no tenant has a bucket spent by refusals.
    expect((await plane.call("GET", "/v1/trafficpolicies", { token: random(), source: "198.51.100.1" })).status).toBe(401);
    expect((await plane.call("GET", "/v1/trafficpolicies", { token: victim, source: "198.51.100.1" })).status).toBe(200);
    const buckets = await createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") }).send(
      new QueryCommand({
        TableName: cp.table,
        KeyConditionExpression: "PK = :pk AND begins_with(SK, :rl)",
        ExpressionAttributeValues: { ":pk": tenantPk("victim"), ":rl": "RL#" },
      }),
    );
    expect((buckets.Items ?? []).map((item) => item.SK)).toEqual([expect.stringMatching(/^RL#read#/)]);
  });

  it("a token this instance verified is not shut out by others' refusals from its address; a credential refused too often is", async () => {
    const plane = api(limits);
    const admin = await cp.tenant("shared-nat");
    const viewer = ((await (await cp.request("POST", "/v1/tokens", { token: admin, body: { name: "v", role: "viewer" } })).json()) as { token: string }).token;
    const nat = "198.51.100.77";
    expect((await plane.call("GET", "/v1/trafficpolicies", { token: admin, source: nat })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await plane.call("GET", "/v1/trafficpolicies", { token: random(), source: nat })).status).toBe(401);
    expect((await plane.call("GET", "/v1/trafficpolicies", { token: random(), source: nat })).status).toBe(429);
    expect((await plane.call("GET", "/v1/trafficpolicies", { token: admin, source: nat })).status).toBe(200);
    // A viewer calling an admin route from many addresses: 403s, then its own credential is refused.
    const codes: number[] = [];
    for (let i = 0; i < 7; i++)
      codes.push((await plane.call("POST", "/v1/tokens", { token: viewer, body: { name: `x${i}`, role: "admin" }, source: `192.0.2.${100 + i}` })).status);
    expect(codes).toEqual([...Array(5).fill(403), 429, 429]);
  });

  it("an IPv6 source counts by its /64", async () => {
    const plane = api(limits);
    for (let i = 0; i < 5; i++) expect((await plane.call("GET", "/v1/tokens", { token: random(), source: `2001:db8:1:2::${i + 1}` })).status).toBe(401);
    expect((await plane.call("GET", "/v1/tokens", { token: random(), source: "2001:db8:1:2:ffff:0:0:9" })).status).toBe(429);
    expect((await plane.call("GET", "/v1/tokens", { token: random(), source: "2001:db8:1:3::1" })).status).toBe(401);
  });
});
