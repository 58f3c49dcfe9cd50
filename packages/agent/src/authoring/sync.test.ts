import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "@meshplane/core/http-client";
import { FINALIZER } from "./objects";
import { type AuthoringCounters, AuthoringSync } from "./sync";
import { FakeApiserver, FakeAuthoringPlane, unreachable } from "./testing";

const SPEC = { destinationSelector: [{ kubeServiceMatcher: { namespaces: ["shop"] } }], policy: { timeout: "1s" } };
const spec = (timeout: string) => ({ ...SPEC, policy: { timeout } });

let running: AuthoringSync[] = [];
afterEach(() => {
  for (const s of running) s.stop();
  running = [];
});

function start(kube: FakeApiserver, plane: FakeAuthoringPlane, namespaces: string[] = []) {
  const counters: AuthoringCounters = { submitted: 0, refused: 0, deleted: 0, pending: 0, statusWrites: 0, errors: 0 };
  const sync = new AuthoringSync({
    kube,
    client: plane,
    namespaces,
    syncEveryMs: 60_000,
    statusEveryMs: 200,
    log: { info: () => undefined, error: () => undefined },
    counters,
    windowMs: 10,
    minGapMs: 100,
  });
  running.push(sync);
  return { sync, counters, started: sync.start() };
}

async function until<T>(what: string, check: () => T | undefined | false, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const ready = (kube: FakeApiserver, name: string) => kube.get("TrafficPolicy", "shop", name)?.status?.conditions?.find((c) => c.type === "Ready");

describe("AuthoringSync", () => {
  it("adds its finalizer, submits the document with its source, syncs once listed and writes Ready back", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    const cr = kube.apply("TrafficPolicy", "shop", "cart", SPEC, { team: "a" });
    await start(kube, plane).started;
    await until("stored", () => plane.stored.get("cart.shop.east"));
    const stored = plane.stored.get("cart.shop.east");
    expect(stored?.source).toEqual({ cluster: "east", namespace: "shop", name: "cart", uid: cr.metadata.uid, generation: 1 });
    await until("finalizer", () => kube.get("TrafficPolicy", "shop", "cart")?.metadata.finalizers?.includes(FINALIZER));
    await until("Ready", () => ready(kube, "cart")?.status === "True");
    const status = kube.get("TrafficPolicy", "shop", "cart")?.status;
    expect(status).toMatchObject({ observedGeneration: 1, meshplane: { name: "cart.shop.east", state: "ACCEPTED" } });
    expect(plane.requests.some((r) => r.what === "sync" && r.count === 1)).toBe(true);
  });

  it("coalesces a flood of edits of one resource into a few submissions of its latest form", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    kube.apply("TrafficPolicy", "shop", "cart", spec("0s"));
    const { counters, started } = start(kube, plane);
    await started;
    for (let i = 1; i <= 100; i++) {
      kube.apply("TrafficPolicy", "shop", "cart", spec(`${i}s`));
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 3));
    }
    await until("the last edit stored", () => plane.stored.get("cart.shop.east")?.source.generation === 101);
    await new Promise((r) => setTimeout(r, 300));
    expect(plane.submitted()).toBeLessThanOrEqual(4);
    expect(counters.submitted).toBe(plane.submitted());
    expect(counters.pending).toBe(0);
  });

  it("submits many resources in batches of at most 50", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    for (let i = 0; i < 120; i++) kube.apply("AccessPolicy", "shop", `p${i}`, {});
    await start(kube, plane).started;
    await until("all stored", () => plane.stored.size === 120);
    const submits = plane.requests.filter((r) => r.what === "submit").map((r) => r.count);
    expect(Math.max(...submits)).toBeLessThanOrEqual(50);
    expect(submits.reduce((a, b) => a + b, 0)).toBe(120);
  });

  it("deletes in the control plane, then removes the finalizer; while the control plane is unreachable the resource stays", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    kube.apply("TrafficPolicy", "shop", "cart", SPEC);
    const { counters, started } = start(kube, plane);
    await started;
    await until("finalizer", () => kube.get("TrafficPolicy", "shop", "cart")?.metadata.finalizers?.includes(FINALIZER));
    await until("stored", () => plane.stored.get("cart.shop.east"));
    plane.fail = (what) => (what === "delete" ? unreachable() : undefined);
    kube.delete("TrafficPolicy", "shop", "cart");
    await until("a delete tried", () => plane.requests.some((r) => r.what === "delete"));
    await new Promise((r) => setTimeout(r, 50));
    expect(kube.get("TrafficPolicy", "shop", "cart")?.metadata.deletionTimestamp).toBeDefined();
    expect(plane.stored.has("cart.shop.east")).toBe(true);
    plane.fail = () => undefined;
    await until("gone from the cluster", () => kube.get("TrafficPolicy", "shop", "cart") === undefined, 5000);
    expect(plane.stored.has("cart.shop.east")).toBe(false);
    expect(counters.deleted).toBe(1);
    expect(counters.errors).toBeGreaterThan(0);
  });

  it("a refusal is written at once as Stalled with the reason and every field, and sent again only when the resource changes", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    plane.refuse = (item) =>
      item.source.generation === 1
        ? {
            outcome: "refused",
            reason: "OutsideGrant",
            errors: [{ path: "spec.destinationSelector[0].kubeServiceMatcher.clusters[0]", message: "selects cluster west" }],
          }
        : undefined;
    kube.apply("TrafficPolicy", "shop", "cart", SPEC);
    const { counters, started } = start(kube, plane);
    await started;
    await until("Stalled", () => kube.get("TrafficPolicy", "shop", "cart")?.status?.conditions?.find((c) => c.type === "Stalled"));
    expect(ready(kube, "cart")).toMatchObject({ status: "False", reason: "OutsideGrant", message: expect.stringContaining("kubeServiceMatcher.clusters[0]") });
    expect(plane.requests.filter((r) => r.what === "read")).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(plane.submitted()).toBe(1);
    expect(counters.refused).toBe(1);
    kube.apply("TrafficPolicy", "shop", "cart", spec("2s"));
    await until("Ready after the edit", () => ready(kube, "cart")?.status === "True");
    expect(kube.get("TrafficPolicy", "shop", "cart")?.status?.observedGeneration).toBe(2);
  });

  it("says Submitting while the control plane is unreachable, backs off, and converges when it is back", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    plane.fail = (what) =>
      what === "submit" || what === "read" ? new ApiError(503, "POST /v1/agent/resources: 503 busy", [], { retryAfterSeconds: 0 }) : undefined;
    kube.apply("TrafficPolicy", "shop", "cart", SPEC);
    await start(kube, plane).started;
    await until("Submitting", () => ready(kube, "cart")?.reason === "Submitting");
    expect(ready(kube, "cart")?.status).toBe("Unknown");
    expect(kube.get("TrafficPolicy", "shop", "cart")?.status?.conditions?.find((c) => c.type === "Reconciling")?.message).toContain("503");
    plane.fail = () => undefined;
    await until("Ready", () => ready(kube, "cart")?.status === "True", 5000);
  });

  it("never syncs before every list is read, and a sync deletes what the cluster no longer holds", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    plane.stored.set("old.shop.east", {
      kind: "TrafficPolicy",
      name: "old.shop.east",
      generation: 1,
      source: { cluster: "east", namespace: "shop", name: "old", uid: "gone-uid", generation: 1 },
      status: { observedGeneration: 1, state: "ACCEPTED" },
    });
    const listPath = kube.listPath.bind(kube);
    let refuse = true;
    kube.listPath = async (path) => {
      if (refuse && path.includes("accesspolicies")) throw new ApiError(500, "etcd down");
      return listPath(path);
    };
    kube.apply("TrafficPolicy", "shop", "cart", SPEC);
    await start(kube, plane).started;
    await until("stored", () => plane.stored.get("cart.shop.east"));
    await new Promise((r) => setTimeout(r, 100));
    expect(plane.requests.filter((r) => r.what === "sync")).toHaveLength(0);
    expect(plane.stored.has("old.shop.east")).toBe(true);
    refuse = false;
    await until("synced", () => plane.requests.some((r) => r.what === "sync"), 5000);
    expect(plane.stored.has("old.shop.east")).toBe(false);
  });

  it("watches only the namespaces it is given, and submits again what an admin deleted through the API", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    kube.apply("TrafficPolicy", "shop", "cart", SPEC);
    kube.apply("TrafficPolicy", "other", "cart", SPEC);
    await start(kube, plane, ["shop"]).started;
    await until("Ready", () => ready(kube, "cart")?.status === "True");
    expect([...plane.stored.keys()]).toEqual(["cart.shop.east"]);
    expect(kube.get("TrafficPolicy", "other", "cart")?.metadata.finalizers).toBeUndefined();
    plane.stored.delete("cart.shop.east");
    await until("stored again", () => plane.stored.get("cart.shop.east"), 3000);
  });

  it("a name the protocol cannot carry is never sent and turns Stalled Invalid", async () => {
    const kube = new FakeApiserver();
    const plane = new FakeAuthoringPlane();
    kube.apply("TrafficPolicy", "shop", "cart.v2", SPEC);
    await start(kube, plane).started;
    await until("Stalled", () => kube.get("TrafficPolicy", "shop", "cart.v2")?.status?.conditions?.find((c) => c.type === "Stalled"));
    expect(kube.get("TrafficPolicy", "shop", "cart.v2")?.status?.conditions?.[0]).toMatchObject({
      reason: "Invalid",
      message: expect.stringContaining("metadata.name"),
    });
    expect(plane.submitted()).toBe(0);
    expect(kube.get("TrafficPolicy", "shop", "cart.v2")?.metadata.finalizers).toBeUndefined();
  });
});
