import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let token: string;

beforeAll(async () => {
  cp = await startControlPlane();
  token = await cp.tenant("acme");
});
afterAll(() => cp.stop());

type Stored = { metadata: { resourceVersion: string }; spec: { policy: unknown } };
const withVersion = (doc: ReturnType<typeof trafficPolicy>, resourceVersion: string) => ({ ...doc, metadata: { ...doc.metadata, resourceVersion } });

describe('metadata.resourceVersion: "" is no precondition, as in Kubernetes', () => {
  it("a replace with an empty resourceVersion is stored", async () => {
    expect((await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("put-empty") })).status).toBe(201);
    await cp.request("PUT", "/v1/trafficpolicies/put-empty", { token, body: trafficPolicy("put-empty", { policy: { requestTimeout: "1s" } }) });
    const res = await cp.request("PUT", "/v1/trafficpolicies/put-empty", {
      token,
      body: withVersion(trafficPolicy("put-empty", { policy: { requestTimeout: "7s" } }), ""),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Stored).spec.policy).toEqual({ requestTimeout: "7s" });
  });

  it("an apply with an empty resourceVersion creates, then replaces", async () => {
    const apply = (timeout: string) =>
      cp.request("POST", "/v1/apply", { token, body: { documents: [withVersion(trafficPolicy("apply-empty", { policy: { requestTimeout: timeout } }), "")] } });
    const created = await apply("2s");
    expect(created.status).toBe(200);
    expect(((await created.json()) as { results: { action: string }[] }).results[0]?.action).toBe("created");
    const replaced = await apply("3s");
    expect(replaced.status).toBe(200);
    expect(((await replaced.json()) as { results: { action: string }[] }).results[0]?.action).toBe("configured");
    const stored = (await (await cp.request("GET", "/v1/trafficpolicies/apply-empty", { token })).json()) as Stored;
    expect(stored.spec.policy).toEqual({ requestTimeout: "3s" });
  });

  it("a stale, non-empty resourceVersion is still refused with 412 and nothing changes", async () => {
    const created = (await (await cp.request("POST", "/v1/trafficpolicies", { token, body: trafficPolicy("stale-version") })).json()) as Stored;
    await cp.request("PUT", "/v1/trafficpolicies/stale-version", { token, body: trafficPolicy("stale-version", { policy: { requestTimeout: "1s" } }) });
    const stale = withVersion(trafficPolicy("stale-version", { policy: { requestTimeout: "9s" } }), created.metadata.resourceVersion);
    expect((await cp.request("PUT", "/v1/trafficpolicies/stale-version", { token, body: stale })).status).toBe(412);
    expect((await cp.request("POST", "/v1/apply", { token, body: { documents: [stale] } })).status).toBe(412);
    const kept = (await (await cp.request("GET", "/v1/trafficpolicies/stale-version", { token })).json()) as Stored;
    expect(kept.spec.policy).toEqual({ requestTimeout: "1s" });
  });
});
