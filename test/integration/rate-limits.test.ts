/**
 * Per-tenant and per-agent rate limits against the real API and DynamoDB Local: a tenant over its
 * budget gets 429 with Retry-After while other tenants — and its own agents and other kinds of its
 * requests — are untouched, budgets renew with the window, and several API instances share one budget.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { RateLimiter } from "../../functions/api/rate-limit";
import { createDocumentClient } from "../../functions/store/client";
import { RateLimitStore } from "../../functions/store/rate-limits";
import { registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

const WINDOW = 10_000;
const fixedNow = () => 1_700_000_000_000;
let cp: ControlPlane;
let flooder: string;
let neighbour: string;

beforeAll(async () => {
  cp = await startControlPlane({
    limits: {
      read: { limit: 20, windowMs: WINDOW, lease: 5 },
      write: { limit: 5, windowMs: WINDOW, lease: 2 },
      plan: { limit: 2, windowMs: WINDOW, lease: 1 },
      agent: { limit: 6, windowMs: WINDOW, lease: 2 },
    },
  });
  flooder = await cp.tenant("flooder");
  neighbour = await cp.tenant("neighbour");
});
afterAll(() => cp.stop());

/** Moves the app's clock to the start of the next window, so each test starts with full budgets. */
function nextWindow(): void {
  const now = cp.clock.now.getTime();
  cp.clock.now = new Date(now - (now % WINDOW) + WINDOW + 1);
}

async function statuses(n: number, request: () => Promise<Response>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await request()).status);
  return out;
}

describe("rate limits", () => {
  it("a tenant over its read budget gets 429 with Retry-After; another tenant does not notice", async () => {
    nextWindow();
    const flood = await Promise.all(Array.from({ length: 40 }, () => cp.request("GET", "/v1/trafficpolicies", { token: flooder })));
    const codes = flood.map((r) => r.status);
    expect(codes.filter((s) => s === 200)).toHaveLength(20);
    expect(codes.filter((s) => s === 429)).toHaveLength(20);
    const refused = flood.find((r) => r.status === 429) as Response;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(10);
    expect(refused.headers.get("content-type")).toBe("application/problem+json");
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/over the read rate limit \(20 requests per 10 s\)/);
    expect(await statuses(10, () => cp.request("GET", "/v1/trafficpolicies", { token: neighbour }))).toEqual(Array(10).fill(200));
  });

  it("kinds of requests have their own budgets: reads used up, writes and plans still go", async () => {
    nextWindow();
    await statuses(25, () => cp.request("GET", "/v1/trafficpolicies", { token: flooder }));
    expect((await cp.request("GET", "/v1/trafficpolicies", { token: flooder })).status).toBe(429);
    expect((await cp.request("POST", "/v1/trafficpolicies", { token: flooder, body: trafficPolicy("still-writes", { policy: { requestTimeout: "1s" } }) })).status).toBe(201);
    const plan = () => cp.request("POST", "/v1/plan", { token: flooder, body: { documents: [trafficPolicy("planned", { policy: { requestTimeout: "2s" } })] } });
    expect(await statuses(3, plan)).toEqual([200, 200, 429]);
  });

  it("a tenant's own users cannot starve its agents, and one agent's budget is not another's", async () => {
    nextWindow();
    const a = await registeredAgent(cp, flooder, "flooder", "agent-a");
    const b = await registeredAgent(cp, flooder, "flooder", "agent-b");
    nextWindow();
    await statuses(25, () => cp.request("GET", "/v1/clusters", { token: flooder }));
    // No snapshot yet is a 404, which the client answers as "nothing to apply": it got through.
    const poll = async (agent: typeof a): Promise<string | number> => {
      try {
        await agent.client.snapshot();
        return "through";
      } catch (error) {
        return (error as { status?: number }).status ?? 0;
      }
    };
    const polls: (string | number)[] = [];
    for (let i = 0; i < 8; i++) polls.push(await poll(a));
    expect(polls).toEqual([...Array(6).fill("through"), 429, 429]);
    expect(await poll(b)).toBe("through");
  });

  it("a budget renews with the next window", async () => {
    nextWindow();
    await statuses(21, () => cp.request("GET", "/v1/tokens", { token: neighbour }));
    expect((await cp.request("GET", "/v1/tokens", { token: neighbour })).status).toBe(429);
    nextWindow();
    expect((await cp.request("GET", "/v1/tokens", { token: neighbour })).status).toBe(200);
  });

  it("API instances share one budget: together they never allow more than the limit", async () => {
    const store = new RateLimitStore({ doc: createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") }), table: cp.table });
    const limit = { limit: 50, windowMs: 60_000, lease: 7 };
    const instances = Array.from({ length: 3 }, () => new RateLimiter(store, { read: limit, write: limit, plan: limit, agent: limit, operator: limit }, fixedNow));
    const results = await Promise.all(Array.from({ length: 120 }, (_, i) => (instances[i % 3] as RateLimiter).take("T#shared", "read", "read")));
    expect(results.filter((r) => r === undefined)).toHaveLength(50);
  });
});
