import { describe, expect, it } from "vitest";
import { CoalescingQueue } from "./queue";

const keys = (taken: { key: string; value: unknown }[]) => taken.map((t) => `${t.key}=${String(t.value)}`);

describe("CoalescingQueue", () => {
  it("keeps the latest value per key, ready after the window", () => {
    const q = new CoalescingQueue<number>({ windowMs: 100, minGapMs: 1000 });
    for (let i = 1; i <= 100; i++) q.set("a", i, i);
    q.set("b", 1, 50);
    expect(q.take(50, 100)).toEqual([]);
    expect(keys(q.take(50, 150))).toEqual(["a=100", "b=1"]);
    expect(q.size).toBe(2);
  });

  it("never sends one key twice within the gap, and holds a value set while its key is in flight", () => {
    const q = new CoalescingQueue<number>({ windowMs: 0, minGapMs: 1000 });
    q.set("a", 1, 0);
    expect(keys(q.take(10, 0))).toEqual(["a=1"]);
    q.set("a", 2, 10);
    q.set("a", 3, 20);
    expect(q.take(10, 2000)).toEqual([]); // in flight
    q.done("a");
    expect(q.nextReadyAt()).toBe(1000);
    expect(keys(q.take(10, 1000))).toEqual(["a=3"]);
    q.done("a");
    expect(q.idle()).toBe(true);
  });

  it("takes at most `max`, only what is accepted, oldest first", () => {
    const q = new CoalescingQueue<string>({ windowMs: 0, minGapMs: 0 });
    for (let i = 0; i < 5; i++) q.set(`k${i}`, i % 2 === 0 ? "submit" : "delete", i);
    expect(q.take(2, 10, (v) => v === "submit").map((t) => t.key)).toEqual(["k0", "k2"]);
    expect(q.take(10, 10, (v) => v === "delete").map((t) => t.key)).toEqual(["k1", "k3"]);
  });

  it("puts back what could not be sent unless a newer value came meanwhile; a value alone goes in a batch of its own", () => {
    const q = new CoalescingQueue<number>({ windowMs: 0, minGapMs: 0 });
    q.set("a", 1, 0);
    q.set("b", 1, 0);
    q.take(10, 0);
    q.set("b", 2, 1);
    q.done("a");
    q.done("b");
    q.retry("a", 1, 500, true);
    q.retry("b", 1, 500, true);
    expect(q.peek("b")).toBe(2);
    expect(keys(q.take(10, 500))).toEqual(["b=2"]);
    expect(keys(q.take(10, 500))).toEqual(["a=1"]);
  });
});
