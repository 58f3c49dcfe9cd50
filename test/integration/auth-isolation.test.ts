import { USER_KINDS, type UserKind } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { allRoutes } from "../../functions/http/app";
import type { Route } from "../../functions/http/route";
import { type ControlPlane, accessPolicy, startControlPlane, trafficPolicy, virtualMesh } from "../support/control-plane";

/**
 * Every route the app serves, with two tenants: credentials are enforced on each, roles are
 * enforced on each, and tenant B can never see or change anything of tenant A.
 */
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
  if (r.path.endsWith("/ca/certificate")) return { certificateChain: "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n" };
  if (r.path.startsWith("/v1/virtualmeshes")) return virtualMesh("vm-a", { globalAccessPolicy: "ENABLED" });
  return undefined;
}

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
  cp = await startControlPlane();
  adminA = await cp.tenant("tenant-a");
  adminB = await cp.tenant("tenant-b");
  for (const doc of [trafficPolicy("tp-a"), accessPolicy("ap-a"), virtualMesh("vm-a")]) {
    const res = await cp.request("POST", `/v1/${USER_KINDS[doc.kind as UserKind].plural}`, { token: adminA, body: doc });
    expect(res.status).toBe(201);
  }
  expect((await cp.request("POST", "/v1/clusters", { token: adminA, body: { name: "cluster-a" } })).status).toBe(201);
  const t = (await (await cp.request("POST", "/v1/tokens", { token: adminA, body: { name: "a-viewer", role: "viewer" } })).json()) as { id: string };
  tokenIdA = t.id;
  for (const role of ["admin", "editor", "viewer"]) {
    tokensB[role] = ((await (await cp.request("POST", "/v1/tokens", { token: adminB, body: { name: `b-${role}`, role } })).json()) as { token: string }).token;
  }
});
afterAll(() => cp.stop());

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
      for (const secretish of ["tp-a", "ap-a", "vm-a", "cluster-a", tokenIdA]) {
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
