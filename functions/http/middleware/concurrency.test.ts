import { Hono } from "hono";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../context";
import { fairTurns, inFlightLimit } from "./concurrency";
import { DEFAULT_LIMITS, RateLimiter } from "./rate-limiter";
import { refuseExhausted } from "./refusals";
import type { RateLimitStore } from "../../store/rate-limits";

describe("in-flight limit per credential", () => {
  it("holds at most N requests of one credential in progress, runs the rest in order, and leaves other credentials alone", async () => {
    const app = new Hono<AppEnv>();
    const active = new Map<string, number>();
    const peak = new Map<string, number>();
    const order: number[] = [];
    app.use(inFlightLimit(3));
    app.get("/x/:i", async (c) => {
      const who = c.req.header("authorization") ?? "";
      active.set(who, (active.get(who) ?? 0) + 1);
      peak.set(who, Math.max(peak.get(who) ?? 0, active.get(who) ?? 0));
      await new Promise((r) => setTimeout(r, 5));
      active.set(who, (active.get(who) ?? 0) - 1);
      order.push(Number(c.req.param("i")));
      return c.text("ok");
    });
    const call = async (token: string, i: number) => (await app.request(`/x/${i}`, { headers: { authorization: `Bearer ${token}` } })).status;
    const a = Array.from({ length: 12 }, (_, i) => call("aaaaaaaaaaaa", i));
    const b = Array.from({ length: 4 }, (_, i) => call("bbbbbbbbbbbb", 100 + i));
    expect(await Promise.all([...a, ...b])).toEqual(Array(16).fill(200));
    expect(peak.get("Bearer aaaaaaaaaaaa")).toBe(3);
    expect(peak.get("Bearer bbbbbbbbbbbb")).toBe(3);
    // Waiters of one credential are served in arrival order.
    const aOrder = order.filter((i) => i < 100);
    expect(aOrder.slice(3)).toEqual(aOrder.slice(3).sort((x, y) => x - y));
  });

  it("gives the slot back when a request fails", async () => {
    const app = new Hono<AppEnv>();
    app.use(inFlightLimit(1));
    app.get("/boom", () => {
      throw new Error("boom");
    });
    app.get("/ok", (c) => c.text("ok"));
    app.onError((_, c) => c.text("failed", 500));
    const headers = { authorization: "Bearer cccccccccccc" };
    expect((await app.request("/boom", { headers })).status).toBe(500);
    expect((await app.request("/ok", { headers })).status).toBe(200);
  });
});

/** An app whose one route refuses with 429 and the given Retry-After, behind held refusals of 1 s. */
const refusing = (retryAfter: string) => {
  const app = new Hono<AppEnv>();
  app.use(inFlightLimit(1, 1000));
  app.get("/refused", (c) => {
    c.header("retry-after", retryAfter);
    return c.text("too many", 429);
  });
  app.get("/ok", (c) => c.text("ok"));
  return app;
};

describe("a held refusal", () => {
  afterEach(() => vi.useRealTimers());

  const headers = { authorization: "Bearer dddddddddddd" };

  it("is sent after the hold, keeping the credential's slot meanwhile", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const app = refusing("5");
    let refused: number | undefined;
    let ok: number | undefined;
    void Promise.resolve(app.request("/refused", { headers })).then((r) => (refused = r.status));
    void Promise.resolve(app.request("/ok", { headers })).then((r) => (ok = r.status));
    await vi.advanceTimersByTimeAsync(999);
    expect([refused, ok]).toEqual([undefined, undefined]);
    await vi.advanceTimersByTimeAsync(1);
    await vi.waitFor(() => expect([refused, ok]).toEqual([429, 200]));
  });

  it("is never held past its Retry-After", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout"] });
    const app = refusing("0");
    let refused: number | undefined;
    void Promise.resolve(app.request("/refused", { headers })).then((r) => (refused = r.status));
    await vi.advanceTimersByTimeAsync(0);
    await vi.waitFor(() => expect(refused).toBe(429));
  });
});

/** An app whose requests each wait for the test to let them finish, recording what ran when. */
const gated = (max: number, perCredential: number) => {
  const app = new Hono<AppEnv>();
  const running: string[] = [];
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  let peak = 0;
  app.use(fairTurns(max, perCredential));
  app.get("/x/:id", async (c) => {
    const id = c.req.param("id");
    running.push(id);
    started.push(id);
    peak = Math.max(peak, running.length);
    await new Promise<void>((resolve) => gates.set(id, resolve));
    running.splice(running.indexOf(id), 1);
    return c.text(id);
  });
  app.get("/boom", () => {
    throw new Error("boom");
  });
  app.onError((_, c) => c.text("failed", 500));
  const call = (token: string, id: string) => Promise.resolve(app.request(`/x/${id}`, { headers: { authorization: `Bearer ${token}` } }));
  const finish = async (id: string) => {
    await vi.waitFor(() => expect(gates.has(id)).toBe(true));
    (gates.get(id) as () => void)();
  };
  return { app, running, started, call, finish, peak: () => peak };
};

describe("turns between credentials", () => {
  it("starts another credential's request at once beside a flood, never behind its backlog", async () => {
    const t = gated(2, 1);
    const flood = Array.from({ length: 6 }, (_, i) => t.call("aaaaaaaaaaaa", `a${i}`));
    await vi.waitFor(() => expect(t.running).toEqual(["a0"]));
    const b = t.call("bbbbbbbbbbbb", "b0");
    // B runs beside A's one request although five more of A's were waiting before it.
    await vi.waitFor(() => expect(t.running).toEqual(["a0", "b0"]));
    await t.finish("b0");
    expect(await (await b).text()).toBe("b0");
    for (let i = 0; i < 6; i++) await t.finish(`a${i}`);
    expect((await Promise.all(flood)).map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(t.peak()).toBe(2);
    // A's own requests ran in the order they came.
    expect(t.started.filter((id) => id.startsWith("a"))).toEqual(["a0", "a1", "a2", "a3", "a4", "a5"]);
  });

  it("hands a freed slot to each waiting credential in turn", async () => {
    const t = gated(1, 1);
    const all = [t.call("aaaaaaaaaaaa", "a0")];
    await vi.waitFor(() => expect(t.running).toEqual(["a0"]));
    for (let i = 1; i < 4; i++) all.push(t.call("aaaaaaaaaaaa", `a${i}`));
    for (let i = 0; i < 3; i++) all.push(t.call("bbbbbbbbbbbb", `b${i}`));
    all.push(t.call("cccccccccccc", "c0"));
    for (const id of ["a0", "a1", "b0", "c0", "a2", "b1", "a3", "b2"]) await t.finish(id);
    await Promise.all(all);
    expect(t.started).toEqual(["a0", "a1", "b0", "c0", "a2", "b1", "a3", "b2"]);
    expect(t.peak()).toBe(1);
  });

  it("gives the slot back when a request fails", async () => {
    const t = gated(1, 1);
    const headers = { authorization: "Bearer eeeeeeeeeeee" };
    expect((await t.app.request("/boom", { headers })).status).toBe(500);
    const ok = t.call("eeeeeeeeeeee", "e0");
    await t.finish("e0");
    expect((await ok).status).toBe(200);
  });
});

describe("turn lanes for credentials not yet verified", () => {
  it("random bearers from one source share one lane instead of each opening their own", async () => {
    // No request here is refused, so the limiter never reaches its store.
    const limiter = new RateLimiter(undefined as unknown as RateLimitStore, DEFAULT_LIMITS);
    const app = new Hono<AppEnv>();
    const running: string[] = [];
    let peak = 0;
    const gates: (() => void)[] = [];
    app.use(refuseExhausted(limiter, { access: "viewer", method: "get", path: "/x/:id" }));
    app.use(fairTurns(4, 1));
    app.get("/x/:id", async (c) => {
      running.push(c.req.param("id"));
      peak = Math.max(peak, running.length);
      await new Promise<void>((resolve) => gates.push(resolve));
      running.splice(running.indexOf(c.req.param("id")), 1);
      return c.text("ok");
    });
    const calls = Array.from({ length: 6 }, (_, i) => Promise.resolve(app.request(`/x/${i}`, { headers: { authorization: `Bearer mpt_random${i}xxxxxxxx` } })));
    for (let i = 0; i < 6; i++) {
      await vi.waitFor(() => expect(gates.length).toBe(1));
      (gates.shift() as () => void)();
    }
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(peak).toBe(1);
  });
});
