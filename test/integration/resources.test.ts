import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

let cp: ControlPlane;
let token: string;

beforeAll(async () => {
  cp = await startControlPlane();
  token = await cp.tenant("acme");
  await cp.jobs();
});
afterAll(() => cp.stop());

const problemOf = async (res: Response) => ({
  status: res.status,
  type: res.headers.get("content-type"),
  body: (await res.json()) as { errors?: { path: string; message: string }[]; detail?: string },
});

describe("user resources", () => {
  it("creates, reads, lists by label, replaces and deletes, enqueuing one job per change", async () => {
    const created = await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("reviews-timeout", {}, { team: "bookinfo" }) });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { metadata: { generation: number; resourceVersion: string; uid: string }; status: { state: string } };
    expect(body.metadata.generation).toBe(1);
    expect(body.status).toEqual({ observedGeneration: 1, state: "PENDING" });
    expect(created.headers.get("etag")).toBe(`"${body.metadata.resourceVersion}"`);

    await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("other", {}, { team: "web" }) });
    const listed = await (await cp.request("GET", "/v1/trafficpolicies?labelSelector=team%3Dbookinfo", { token })).json();
    expect((listed as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toEqual(["reviews-timeout"]);
    const notIn = await (await cp.request("GET", "/v1/trafficpolicies?labelSelector=team%20notin%20(bookinfo)", { token })).json();
    expect((notIn as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name)).toEqual(["other"]);

    const changed = trafficPolicy("reviews-timeout", { policy: { requestTimeout: "2s" } }, { team: "bookinfo" });
    const replaced = await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", {
      token,
      body: changed,
      headers: { "if-match": created.headers.get("etag") as string },
    });
    expect(replaced.status).toBe(200);
    const r = (await replaced.json()) as { metadata: { generation: number; uid: string; resourceVersion: string }; spec: { policy: unknown } };
    expect(r.metadata.generation).toBe(2);
    expect(r.metadata.uid).toBe(body.metadata.uid);
    expect(r.spec.policy).toEqual({ requestTimeout: "2s" });

    const labelOnly = await cp.request("PUT", "/v1/trafficpolicies/reviews-timeout", {
      token,
      body: { ...changed, metadata: { name: "reviews-timeout", labels: { team: "x" } } },
    });
    expect(((await labelOnly.json()) as { metadata: { generation: number } }).metadata.generation).toBe(2);

    const deleted = await cp.request("DELETE", "/v1/trafficpolicies/reviews-timeout", { token });
    expect(deleted.status).toBe(200);
    expect((await cp.request("GET", "/v1/trafficpolicies/reviews-timeout", { token })).status).toBe(404);

    const jobs = await cp.jobs();
    expect(jobs.map((j) => j.body)).toEqual([1, 2, 3, 4, 5].map((revision) => ({ tenantId: "acme", revision })));
    expect(new Set(jobs.map((j) => j.groupId))).toEqual(new Set(["acme"]));
    expect(jobs.map((j) => j.dedupId)).toEqual(["acme-1", "acme-2", "acme-3", "acme-4", "acme-5"]);
  });

  it("does not bump the revision or enqueue when a replace changes nothing", async () => {
    const doc = accessPolicy("same");
    await cp.request("POST", "/v1/accesspolicies", { token, body: doc });
    await cp.jobs();
    const again = await cp.request("PUT", "/v1/accesspolicies/same", { token, body: doc });
    expect(again.status).toBe(200);
    expect(await cp.jobs()).toEqual([]);
  });

  it("rejects a create of an existing name with 409 and keeps the original", async () => {
    await cp.request("POST", "/v1/virtualmeshes", { token, body: virtualMesh("vm") });
    const dup = await cp.request("POST", "/v1/virtualmeshes", { token, body: virtualMesh("vm", { globalAccessPolicy: "ENABLED" }) });
    expect(dup.status).toBe(409);
    const kept = (await (await cp.request("GET", "/v1/virtualmeshes/vm", { token })).json()) as { spec: Record<string, unknown> };
    expect(kept.spec.globalAccessPolicy).toBeUndefined();
  });

  it("answers 412 to a stale If-Match and 404 to a replace of a missing resource", async () => {
    const res = await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("stale") });
    const etag = res.headers.get("etag") as string;
    await cp.request("PUT", "/v1/trafficpolicies/stale", { token, body: trafficPolicy("stale", { policy: { requestTimeout: "1s" } }) });
    const stale = await cp.request("PUT", "/v1/trafficpolicies/stale", {
      token,
      body: trafficPolicy("stale", { policy: { requestTimeout: "9s" } }),
      headers: { "if-match": etag },
    });
    expect(stale.status).toBe(412);
    expect((await cp.request("DELETE", "/v1/trafficpolicies/stale", { token, headers: { "if-match": etag } })).status).toBe(412);
    const kept = (await (await cp.request("GET", "/v1/trafficpolicies/stale", { token })).json()) as { spec: { policy: unknown } };
    expect(kept.spec.policy).toEqual({ requestTimeout: "1s" });
    expect((await cp.request("PUT", "/v1/trafficpolicies/missing", { token, body: trafficPolicy("missing") })).status).toBe(404);
  });

  it("lets exactly one of two concurrent replaces with the same If-Match win", async () => {
    const res = await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("race") });
    const etag = res.headers.get("etag") as string;
    const [a, b] = await Promise.all(
      ["1s", "2s"].map((t) =>
        cp.request("PUT", "/v1/trafficpolicies/race", { token, body: trafficPolicy("race", { policy: { requestTimeout: t } }), headers: { "if-match": etag } }),
      ),
    );
    expect([a?.status, b?.status].sort()).toEqual([200, 412]);
    const winner = a?.status === 200 ? "1s" : "2s";
    const stored = (await (await cp.request("GET", "/v1/trafficpolicies/race", { token })).json()) as {
      spec: { policy: { requestTimeout: string } };
      metadata: { generation: number };
    };
    expect(stored.spec.policy.requestTimeout).toBe(winner);
    expect(stored.metadata.generation).toBe(2);
  });

  it("reports an error as problem+json with a request id", async () => {
    const res = await cp.request("GET", "/v1/trafficpolicies/nope", { token });
    const p = await problemOf(res);
    expect(p.status).toBe(404);
    expect(p.type).toBe("application/problem+json");
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("large statuses", () => {
  it("a policy over 10,000 destinations keeps its whole status (compressed within one item)", async () => {
    await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("everything") });
    const resource = await cp.store.resources.get("acme", "TrafficPolicy", "everything");
    const destinations = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`service-${i}-namespace-${i % 50}-cluster-${i % 100}`, { state: "ACCEPTED" as const, acceptanceOrder: i + 1 }]),
    );
    const status = { observedGeneration: resource.metadata.generation, state: "ACCEPTED" as const, destinations };
    expect(JSON.stringify(status).length).toBeGreaterThan(400_000);
    expect(await cp.store.resources.writeStatus("acme", "TrafficPolicy", "everything", resource.metadata.generation, status)).toBe(true);
    const read = (await (await cp.request("GET", "/v1/trafficpolicies/everything", { token })).json()) as { status: typeof status };
    expect(Object.keys(read.status.destinations)).toHaveLength(10_000);
    expect(read.status.destinations["service-9999-namespace-49-cluster-99"]).toEqual({ state: "ACCEPTED", acceptanceOrder: 10_000 });
  });
});
