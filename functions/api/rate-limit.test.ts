import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "./context";
import { inFlightLimit } from "./rate-limit";

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
