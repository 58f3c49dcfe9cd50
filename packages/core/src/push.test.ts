import { describe, expect, it } from "vitest";
import { FIRST_RECONNECT_SPREAD_MS, RECONNECT_CAP_MS, agentPushMessage, pushMessage, pushUrl, reconnectDelayMs } from "./push";

describe("push protocol", () => {
  it("parses the control plane's messages and refuses anything else", () => {
    expect(pushMessage.parse({ type: "generation", generation: 7 })).toEqual({ type: "generation", generation: 7 });
    expect(pushMessage.safeParse({ type: "generation", generation: -1 }).success).toBe(false);
    expect(pushMessage.safeParse({ type: "generation", generation: 1, objects: [] }).success).toBe(false);
    expect(pushMessage.safeParse({ type: "apply" }).success).toBe(false);
    expect(agentPushMessage.safeParse({ type: "ping" }).success).toBe(true);
    expect(agentPushMessage.safeParse({ type: "ping", extra: 1 }).success).toBe(false);
  });

  it("spreads the first reconnect over 30 s, then backs off with full jitter to a 5 minute cap", () => {
    expect(reconnectDelayMs(0, () => 0)).toBe(0);
    expect(reconnectDelayMs(0, () => 0.999_999)).toBeLessThan(FIRST_RECONNECT_SPREAD_MS);
    expect(reconnectDelayMs(1, () => 0.999_999)).toBeLessThan(2_000);
    expect(reconnectDelayMs(3, () => 0.999_999)).toBeLessThan(8_000);
    expect(reconnectDelayMs(50, () => 0.999_999)).toBeLessThan(RECONNECT_CAP_MS);
    expect(reconnectDelayMs(50, () => 0.999_999)).toBeGreaterThan(RECONNECT_CAP_MS - 1_000);
    // 10,000 agents dropped at once: no second of the first 30 holds more than a few hundred reconnects.
    const perSecond = new Map<number, number>();
    for (let i = 0; i < 10_000; i++) {
      const s = Math.floor(reconnectDelayMs(0) / 1000);
      perSecond.set(s, (perSecond.get(s) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThan(500);
  });

  it("turns the control plane's URL into the channel's", () => {
    expect(pushUrl("https://mp.example.com")).toBe("wss://mp.example.com/v1/agent/push");
    expect(pushUrl("http://127.0.0.1:8080/")).toBe("ws://127.0.0.1:8080/v1/agent/push");
  });
});
