import { type DestinationMetrics, type GraphView, type ImpactList, USER_KINDS, type UserKind } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../functions/http/app";
import type { Route } from "../../functions/http/route";
import { discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, accessPolicy, trafficPolicy, virtualMesh } from "../support/control-plane";
import { type MetricsPlane, bookinfoEdge, flowReports, recordChange, seedMetrics, startMetrics } from "../support/metrics-seed";

/**
 * Every route the app serves, with two tenants: credentials are enforced on each, roles are
 * enforced on each, and tenant B can never see or change anything of tenant A — its metrics
 * included: A's cluster is discovered, a change of A's is recorded, and its traffic kept in the
 * metrics store on the SQS/S3 emulator.
 */
let plane: MetricsPlane;
let cp: ControlPlane;
let adminA: string;
let adminB: string;
const tokensB: Record<string, string> = {};
let tokenIdA = "";

const routes: Route[] = allRoutes({
  store: {} as never,
  queue: {} as never,
  signer: {} as never,
  authority: {} as never,
  csrSigner: {} as never,
  now: () => new Date(),
});

/** A valid body for each writing route, naming things that exist in tenant A. */
function bodyFor(r: Route): unknown {
  if (r.method === "get" || r.method === "delete") return undefined;
  if (r.path === "/v1/tenants") return { name: "newtenant" };
  if (r.path === "/v1/tokens") return { name: "ci", role: "viewer" };
  if (r.path === "/v1/clusters") return { name: "cluster-a" };
  if (r.path === "/v1/apply" || r.path === "/v1/plan") return { documents: [trafficPolicy("tp-a")] };
  if (r.path.startsWith("/v1/trafficpolicies")) return trafficPolicy("tp-a", { policy: { requestTimeout: "9s" } });
  if (r.path.startsWith("/v1/accesspolicies")) return accessPolicy("ap-a", { allowedMethods: ["POST"] });
  if (r.path.endsWith("/authoring")) return { kinds: ["TrafficPolicy", "VirtualMesh"], clusters: ["*"] };
  if (r.path.endsWith("/ca/certificate")) return { certificateChain: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n" };
  if (r.path.startsWith("/v1/virtualmeshes")) return virtualMesh("vm-a", { globalAccessPolicy: "ENABLED" });
  return undefined;
}

/** Tenant A's discovered Destination whose traffic the metrics store keeps, hurt by A's change CHANGE_A. */
const DESTINATION_A = "reviews-bookinfo-cluster-a";
const CHANGE_A = "reviews-abort";

/**
 * For each path parameter, by the route path up to it: the object of tenant A it names and the list
 * A sees that object in. A 404 for tenant B proves isolation only if the path names something A has,
 * so the isolation test checks that A has it, and pathFor refuses a parameter missing here instead
 * of sending it unfilled (a 404 whatever the route does).
 */
function parameters(): Record<string, { value: string; listedAt: string }> {
  return {
    "/v1/tenants/{id}": { value: "tenant-a", listedAt: "/v1/tenants" },
    "/v1/tokens/{id}": { value: tokenIdA, listedAt: "/v1/tokens" },
    "/v1/clusters/{name}": { value: "cluster-a", listedAt: "/v1/clusters" },
    "/v1/trafficpolicies/{name}": { value: "tp-a", listedAt: "/v1/trafficpolicies" },
    "/v1/accesspolicies/{name}": { value: "ap-a", listedAt: "/v1/accesspolicies" },
    "/v1/virtualmeshes/{name}": { value: "vm-a", listedAt: "/v1/virtualmeshes" },
    "/v1/destinations/{name}": { value: DESTINATION_A, listedAt: "/v1/destinations" },
  };
}

/** The concrete path of a route, its parameters pointing at tenant A's objects; throws for a parameter it cannot fill. */
function pathFor(r: Route): string {
  let path = r.path;
  for (const [prefix, { value }] of Object.entries(parameters())) {
    if (path.startsWith(prefix)) path = prefix.replace(/\{\w+\}$/, value) + path.slice(prefix.length);
  }
  const unfilled = /\{\w+\}/.exec(path);
  if (unfilled) throw new Error(`${r.method.toUpperCase()} ${r.path}: no object of tenant A for ${unfilled[0]}; add one to parameters()`);
  return path;
}

/** Checks that the objects `r`'s path parameters name exist in tenant A, as A lists them. */
async function expectTenantAHas(r: Route): Promise<void> {
  for (const [prefix, { value, listedAt }] of Object.entries(parameters())) {
    if (!r.path.startsWith(prefix)) continue;
    const res = await cp.request("GET", listedAt, { token: adminA });
    expect(res.status, listedAt).toBe(200);
    const items = ((await res.json()) as { items: { id?: string; name?: string; metadata?: { name: string } }[] }).items;
    expect(
      items.map((i) => i.id ?? i.metadata?.name ?? i.name),
      listedAt,
    ).toContain(value);
  }
}

const call = (r: Route, token?: string) =>
  cp.request(r.method.toUpperCase(), pathFor(r), { ...(token ? { token } : {}), ...(bodyFor(r) !== undefined ? { body: bodyFor(r) } : {}) });

/** Everything tenant A owns, as its admin reads it. */
async function snapshotA(): Promise<unknown> {
  const out: Record<string, unknown> = {};
  for (const p of ["/v1/trafficpolicies", "/v1/accesspolicies", "/v1/virtualmeshes", "/v1/clusters", "/v1/tokens"]) {
    const items = ((await (await cp.request("GET", p, { token: adminA })).json()) as { items: Record<string, unknown>[] }).items;
    out[p] = items.map((i) => ({ ...i, lastUsedAt: undefined }));
  }
  return out;
}

beforeAll(async () => {
  plane = await startMetrics();
  cp = plane.cp;
  adminA = await cp.tenant("tenant-a");
  adminB = await cp.tenant("tenant-b");
  for (const doc of [trafficPolicy("tp-a"), accessPolicy("ap-a"), virtualMesh("vm-a")]) {
    const res = await cp.request("POST", `/v1/${USER_KINDS[doc.kind as UserKind].plural}`, { token: adminA, body: doc });
    expect(res.status).toBe(201);
  }
  await metricsOfA();
  const t = (await (await cp.request("POST", "/v1/tokens", { token: adminA, body: { name: "a-viewer", role: "viewer" } })).json()) as { id: string };
  tokenIdA = t.id;
  for (const role of ["admin", "editor", "viewer"]) {
    tokensB[role] = ((await (await cp.request("POST", "/v1/tokens", { token: adminB, body: { name: `b-${role}`, role } })).json()) as { token: string }).token;
  }
});
afterAll(async () => {
  await plane?.stop();
});

/**
 * Registers cluster-a with an agent whose discovery has reviews in bookinfo, records CHANGE_A 16
 * minutes ago (the clock set back while it is made), and keeps traffic into reviews from 15 minutes
 * before it to 14 after, failing half of it after: a series, a graph and an impact of A's.
 */
async function metricsOfA(): Promise<void> {
  const now = Math.floor(Date.now() / 60_000) * 60;
  const changed = now - 16 * 60;
  cp.clock.now = new Date((changed + 5) * 1000);
  const agent = await registeredAgent(cp, adminA, "tenant-a", "cluster-a");
  await agent.client.discovery(discoveryOf("istio-bookinfo", "cluster-a"));
  await recordChange(
    cp,
    adminA,
    { tenant: "tenant-a", cluster: "cluster-a", client: agent.client },
    {
      name: CHANGE_A,
      service: "reviews",
      // tp-a sets every bookinfo destination's timeout: the change aborts half the requests instead.
      policy: { faultInjection: { abort: { httpStatus: 503 }, percentage: 50 } },
    },
  );
  cp.clock.now = new Date();
  const flow = { edge: bookinfoEdge("a-1", "productpage-v1", "a-1", "reviews"), requests: 20, failures: (m: number) => (m >= changed ? 10 : 0), bucket: 4 };
  const minutes = Array.from({ length: 30 }, (_, i) => changed + (i - 15) * 60);
  for (const report of flowReports("cluster-a", "a-1", [flow], minutes))
    await seedMetrics(plane.target, { tenant: "tenant-a", cluster: "cluster-a", key: agent.key }, report);
}

const secured = routes.filter((r) => r.access !== "public");

describe("credentials on every route", () => {
  it.each(secured.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))("%s: 401 without or with a bad token", async (_name, r) => {
    expect((await call(r)).status).toBe(401);
    expect((await call(r, "mpt_notarealtokenatallnotarealtoken")).status).toBe(401);
    expect((await cp.request(r.method.toUpperCase(), pathFor(r), { headers: { authorization: "Basic abc" } })).status).toBe(401);
  });

  it("a revoked token stops working at once; an expired one too", async () => {
    const created = (await (await cp.request("POST", "/v1/tokens", { token: adminB, body: { name: "shortlived", role: "viewer", ttlDays: 1 } })).json()) as {
      id: string;
      token: string;
    };
    expect((await cp.request("GET", "/v1/clusters", { token: created.token })).status).toBe(200);
    cp.clock.now = new Date(cp.clock.now.getTime() + 2 * 86_400_000);
    expect((await cp.request("GET", "/v1/clusters", { token: created.token })).status).toBe(401);
    cp.clock.now = new Date();
    expect((await cp.request("GET", "/v1/clusters", { token: created.token })).status).toBe(200);
    expect((await cp.request("DELETE", `/v1/tokens/${created.id}`, { token: adminB })).status).toBe(204);
    expect((await cp.request("GET", "/v1/clusters", { token: created.token })).status).toBe(401);
  });
});

describe("roles on every route", () => {
  const rank = { viewer: 1, editor: 2, admin: 3 } as const;
  it.each(secured.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))("%s", async (_name, r) => {
    if (r.access === "agent") {
      // Agent routes take only a JWT signed by a registered agent key: no API token gets in.
      for (const token of [cp.operatorToken, tokensB.admin, tokensB.editor, tokensB.viewer]) expect((await call(r, token)).status).toBe(401);
      return;
    }
    if (r.access === "operator") {
      for (const role of ["admin", "editor", "viewer"]) expect((await call(r, tokensB[role])).status).toBe(403);
      return;
    }
    expect((await call(r, cp.operatorToken)).status).toBe(403);
    for (const role of ["admin", "editor", "viewer"] as const) {
      if (rank[role] < rank[r.access as keyof typeof rank]) expect((await call(r, tokensB[role])).status, role).toBe(403);
    }
  });
});

describe("tenant isolation on every route", () => {
  it("tenant A has metrics to hide: a series with its change, a graph, an impact; tenant B reads none of them", async () => {
    const read = async <T>(path: string, token: string) => (await (await cp.request("GET", path, { token })).json()) as T;
    const series = await read<DestinationMetrics>(`/v1/destinations/${DESTINATION_A}/metrics?window=1h`, adminA);
    expect(series.total.requests).toBe(30 * 20);
    expect(series.markers.map((m) => m.name)).toEqual([CHANGE_A]);
    expect((await read<GraphView>("/v1/graph?window=1h", adminA)).edges).toHaveLength(1);
    expect((await read<ImpactList>("/v1/metrics/impacts?window=1h", adminA)).impacts.map((i) => [i.destination, i.change.name])).toEqual([
      [DESTINATION_A, CHANGE_A],
    ]);
    expect((await cp.request("GET", `/v1/destinations/${DESTINATION_A}/metrics?window=1h`, { token: adminB })).status).toBe(404);
    expect((await read<GraphView>("/v1/graph?window=1h", adminB)).edges).toEqual([]);
    expect((await read<ImpactList>("/v1/metrics/impacts?window=1h", adminB)).impacts).toEqual([]);
  });

  it.each(secured.filter((r) => r.access !== "operator").map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))(
    "%s as tenant B leaves tenant A untouched",
    async (_name, r) => {
      const before = await snapshotA();
      const res = await call(r, adminB);
      const text = await res.text();
      if (r.path.includes("{")) {
        expect(res.status, text).toBe(404);
        await expectTenantAHas(r);
      }
      for (const secretish of ["tp-a", "ap-a", "vm-a", "cluster-a", CHANGE_A, tokenIdA]) {
        if (r.method === "get" && !r.path.includes("{")) expect(text).not.toContain(secretish);
      }
      expect(await snapshotA()).toEqual(before);
      // Undo what B created for itself so the next route starts from the same state.
      for (const p of ["/v1/trafficpolicies/tp-a", "/v1/accesspolicies/ap-a", "/v1/virtualmeshes/vm-a", "/v1/clusters/cluster-a"]) {
        await cp.request("DELETE", p, { token: adminB });
      }
    },
  );
});
