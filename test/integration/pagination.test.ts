import { QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { type Destination, type UserDocument, matchesLabels, parseLabelSelector } from "@meshplane/core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { MAX_CONTINUE_CHARS, encodeContinue } from "../../functions/http/pagination";
import { createDocumentClient } from "../../functions/store/client";
import { keys, tenantPk } from "../../functions/store/keys";
import { labelFilter } from "../../functions/store/label-filter";
import { MAX_PAGE_BYTES } from "../../functions/store/page";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";
import { type ListBody, followPages, namesOf, seedPolicies } from "../support/list-pages";

let cp: ControlPlane;
let acme: string;
let other: string;

beforeAll(async () => {
  cp = await startControlPlane();
  acme = await cp.tenant("acme");
  other = await cp.tenant("other");
});
afterAll(() => cp.stop());

interface Problem {
  errors: { path: string; message: string }[];
}

const client = () => createDocumentClient({ region: "us-east-1", endpoint: inject("dynamoEndpoint") });
/** The labels of policy i: three teams, every other one a tier, every fifth one no labels at all. */
const labelsOf = (i: number): Record<string, string> | undefined => (i % 5 === 4 ? undefined : { team: `t${i % 3}`, ...(i % 2 === 0 ? { tier: "web" } : {}) });
const pages = <T = { metadata: { name: string } }>(token: string, path: string, from?: string) =>
  followPages<T>((p) => cp.request("GET", p, { token }), path, from);
const firstToken = async (token: string, path: string) => ((await (await cp.request("GET", path, { token })).json()) as ListBody).metadata.continue as string;
const destination = (cluster: string, namespace: string, name: string): Destination => ({
  kind: "Destination",
  metadata: { name: `${name}-${namespace}-${cluster}`, cluster },
  spec: {
    name,
    namespace,
    cluster,
    mesh: `istiod-${cluster}`,
    labels: { app: name },
    selector: { app: name },
    ports: [{ name: "http", port: 9080, protocol: "TCP" }],
    subsets: {},
    endpoints: [],
    workloads: [],
  },
});
const errorsOf = async (res: Response) => ({ status: res.status, errors: ((await res.json()) as Problem).errors.map((e) => e.path) });

describe("paging user resources", () => {
  let all: string[] = [];
  /** Policies made to look stored before the labels map existed (by the test that removes it). */
  const LEGACY = ["tp-00003", "tp-00010", "tp-00011"];

  beforeAll(async () => {
    all = await seedPolicies(cp.store, "acme", "tp", 2500, labelsOf);
  }, 120_000);

  it("pages through 2,500 policies with limit 1000: each exactly once, in name order, the last page without continue", async () => {
    const { bodies, bytes } = await pages(acme, "/v1/trafficpolicies?limit=1000");
    expect(bodies.map((b) => b.items.length)).toEqual([1000, 1000, 500]);
    expect(bodies.map((b) => b.metadata.continue === undefined)).toEqual([false, false, true]);
    expect(namesOf(bodies)).toEqual(all);
    // A page of 1,000 small policies is well under Lambda's 6 MB answer.
    expect(bytes[0]).toBeLessThan(1024 * 1024);
  });

  it("answers at most 500 by default, and says so in the first page's continue", async () => {
    const res = (await (await cp.request("GET", "/v1/trafficpolicies", { token: acme })).json()) as ListBody;
    expect(res.items).toHaveLength(500);
    expect(res.metadata.continue).toEqual(expect.any(String));
  });

  it.each([["team=t1"], ["team in (t0,t2),tier"], ["team notin (t0)"], ["tier!=web"], ["!team"], ["team=t1,!tier"]])(
    "pages a labelSelector %s: the same items, in order, as filtering everything",
    async (selector) => {
      const expected = all.filter((_, i) => matchesLabels(parseLabelSelector(selector), labelsOf(i)));
      const { bodies } = await pages(acme, `/v1/trafficpolicies?limit=300&labelSelector=${encodeURIComponent(selector)}`);
      expect(namesOf(bodies)).toEqual(expected);
      expect(bodies.every((b) => b.items.length <= 300)).toBe(true);
    },
  );

  it("lists items stored before labels were copied for DynamoDB (no labels attribute) by their body", async () => {
    const db = client();
    for (const name of LEGACY) {
      await db.send(new UpdateCommand({ TableName: cp.table, Key: keys.resource("acme", "TrafficPolicy", name), UpdateExpression: "REMOVE labels" }));
    }
    for (const selector of ["team=t1", "tier", "!team", "team notin (t0)"]) {
      const expected = all.filter((_, i) => matchesLabels(parseLabelSelector(selector), labelsOf(i)));
      expect(namesOf((await pages(acme, `/v1/trafficpolicies?limit=1000&labelSelector=${encodeURIComponent(selector)}`)).bodies)).toEqual(expected);
    }
  });

  it.each([["team=t1"], ["team==t1"], ["team!=t1"], ["team in (t0,t1)"], ["team notin (t0,t1)"], ["tier"], ["!tier"], ["team,tier=web,team notin (t2)"]])(
    "DynamoDB's own filter for %s selects exactly what matchesLabels selects",
    async (selector) => {
      const requirements = parseLabelSelector(selector);
      const filter = labelFilter(requirements);
      expect(filter).toBeDefined();
      const names: string[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await client().send(
          new QueryCommand({
            TableName: cp.table,
            KeyConditionExpression: "PK = :pk AND begins_with(SK, :prefix)",
            FilterExpression: filter?.expression,
            ExpressionAttributeNames: filter?.names,
            ExpressionAttributeValues: { ":pk": tenantPk("acme"), ":prefix": "R#TrafficPolicy#tp-", ...filter?.values },
            ExclusiveStartKey: start,
          }),
        );
        // Items without the labels map pass the filter by design (the LEGACY ones, once made so); the others must be exact.
        names.push(...(page.Items ?? []).map((i) => i.name as string).filter((name) => !LEGACY.includes(name)));
        start = page.LastEvaluatedKey;
      } while (start);
      expect(names).toEqual(all.filter((name, i) => !LEGACY.includes(name) && matchesLabels(requirements, labelsOf(i))));
    },
  );
});

describe("paging big resources", () => {
  it("cuts a page by size before the limit, so an answer stays under Lambda's 6 MB", async () => {
    const token = await cp.tenant("bulky");
    const matchers = Array.from({ length: 1400 }, (_, i) => ({ headers: [{ name: `x-header-${i}`, value: "v".repeat(150) }] }));
    const names = Array.from({ length: 20 }, (_, i) => `big-${String(i).padStart(2, "0")}`);
    for (const name of names) {
      const doc = trafficPolicy(name, { httpRequestMatchers: matchers, policy: { requestTimeout: "1s" } }) as UserDocument;
      await cp.store.resources.write("bulky", [{ doc, mode: "create" }], new Date().toISOString());
    }
    const { bodies, bytes } = await pages(token, "/v1/trafficpolicies?limit=1000");
    expect(namesOf(bodies)).toEqual(names);
    expect(bodies.length).toBeGreaterThan(1);
    expect(Math.max(...bytes)).toBeGreaterThan(3 * 1024 * 1024);
    expect(Math.max(...bytes)).toBeLessThan(MAX_PAGE_BYTES + 64 * 1024);
  });
});

describe("continue tokens", () => {
  it.each([
    ["garbage", "not a token!"],
    ["base64url that is not JSON", Buffer.from("hello").toString("base64url")],
    ["JSON of another shape", Buffer.from(JSON.stringify({ v: 1, s: "x", p: "a", PK: "T#other" })).toString("base64url")],
    ["another version", Buffer.from(JSON.stringify({ v: 2, s: "x", p: "a" })).toString("base64url")],
    ["too long", "A".repeat(4097)],
  ])("%s is a 400 naming query.continue", async (_what, token) => {
    expect(await errorsOf(await cp.request("GET", `/v1/trafficpolicies?continue=${encodeURIComponent(token)}`, { token: acme }))).toEqual({
      status: 400,
      errors: ["query.continue"],
    });
  });

  it.each([["0"], ["1001"], ["ten"], [""], ["-5"], ["2.5"]])("limit=%s is a 400 naming query.limit", async (limit) => {
    expect(await errorsOf(await cp.request("GET", `/v1/trafficpolicies?limit=${limit}`, { token: acme }))).toEqual({ status: 400, errors: ["query.limit"] });
  });

  it("a token of another collection or another filter is a 400", async () => {
    const token = await firstToken(acme, "/v1/trafficpolicies?limit=10");
    for (const path of ["/v1/accesspolicies", "/v1/trafficpolicies?labelSelector=team%3Dt1", "/v1/clusters", "/v1/destinations"]) {
      const res = await cp.request("GET", `${path}${path.includes("?") ? "&" : "?"}continue=${token}`, { token: acme });
      expect(await errorsOf(res), path).toEqual({ status: 400, errors: ["query.continue"] });
    }
  });

  it("tenant A's token used by tenant B is a 400, and a token forged for B's list still reads only B's items", async () => {
    await seedPolicies(cp.store, "other", "tp", 5);
    const fromA = await firstToken(acme, "/v1/trafficpolicies?limit=2");
    const refused = await cp.request("GET", `/v1/trafficpolicies?continue=${fromA}`, { token: other });
    expect(await errorsOf(refused)).toEqual({ status: 400, errors: ["query.continue"] });

    // Someone who knows the format makes a token for B's own list that points into A's names: the
    // partition still comes from B's credential, so it only positions B's list.
    const forged = encodeContinue(["resources", "other", "TrafficPolicy", []], "tp-00001");
    type Uid = { metadata: { name: string; uid: string } };
    const uidsOf = (bodies: ListBody<Uid>[]) => bodies.flatMap((b) => b.items.map((i) => `${i.metadata.name} ${i.metadata.uid}`));
    const ownOfB = uidsOf((await pages<Uid>(other, "/v1/trafficpolicies")).bodies);
    const { bodies } = await pages<Uid>(other, "/v1/trafficpolicies", forged);
    expect(uidsOf(bodies)).toEqual(ownOfB.slice(2));
    expect(namesOf(bodies)).toEqual(["tp-00002", "tp-00003", "tp-00004"]);

    // A position past the end is an empty last page; one no key could be (over DynamoDB's 1,024-byte
    // sort key, with or without the list's prefix) is refused.
    const past = await pages(other, "/v1/trafficpolicies", encodeContinue(["resources", "other", "TrafficPolicy", []], "~"));
    expect(past.bodies).toEqual([{ items: [], metadata: {} }]);
    for (const unlike of ["\u{1F600}".repeat(300), "x".repeat(1020)]) {
      const unreachable = encodeContinue(["resources", "other", "TrafficPolicy", []], unlike);
      expect(await errorsOf(await cp.request("GET", `/v1/trafficpolicies?continue=${unreachable}`, { token: other }))).toEqual({
        status: 400,
        errors: ["query.continue"],
      });
    }
  });

  it("pages discovered objects whose names are anything the store holds (non-ASCII, control characters, 600 characters, a full sort key)", async () => {
    const token = await cp.tenant("odd-names");
    expect((await cp.request("POST", "/v1/clusters", { token, body: { name: "east" } })).status).toBe(201);
    // Written through the store: the API would not take such names from a user, but an agent's report lands here.
    const fullKey = "z".repeat(1024 - Buffer.byteLength(keys.discoveredPrefix("Destination")));
    const names = [
      ...Array.from({ length: 3 }, (_, i) => `${"a".repeat(600)}-${i}`),
      ...Array.from({ length: 3 }, (_, i) => `ünïcödé-${i}`),
      `服务-${"界".repeat(300)}`,
      "\u{1F600}".repeat(250),
      'ctl-\u0001\u0002\u001f-"q"\\',
      "\u0000".repeat(900),
      fullKey,
      "plain",
    ];
    const destinations = names.map((name) => {
      const d = destination("east", "shop", "x");
      return { ...d, metadata: { ...d.metadata, name } };
    });
    await cp.store.discovered.replace("odd-names", "east", { meshes: [], workloads: [], destinations });
    // DynamoDB orders keys by their UTF-8 bytes.
    const expected = names.toSorted((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const limit of [1, 2, 5]) {
      const { bodies } = await pages(token, `/v1/destinations?limit=${limit}`);
      expect(namesOf(bodies), `limit=${limit}`).toEqual(expected);
      for (const body of bodies) if (body.metadata.continue !== undefined) expect(body.metadata.continue.length).toBeLessThanOrEqual(MAX_CONTINUE_CHARS);
    }
    const { bodies } = await pages(token, "/v1/destinations?limit=1&cluster=east&namespace=shop");
    expect(namesOf(bodies)).toEqual(expected);
  });
});

describe("paging the other lists", () => {
  it("clusters: by name, a page at a time", async () => {
    const names = ["c-a", "c-b", "c-c", "c-d", "c-e"];
    for (const name of names.toReversed()) expect((await cp.request("POST", "/v1/clusters", { token: other, body: { name } })).status).toBe(201);
    const { bodies } = await pages<{ name: string }>(other, "/v1/clusters?limit=2");
    expect(bodies.map((b) => b.items.map((c) => c.name))).toEqual([["c-a", "c-b"], ["c-c", "c-d"], ["c-e"]]);
  });

  it("tokens: oldest first, a page at a time, a token revoked between pages not repeating any", async () => {
    const created: string[] = [];
    for (const name of ["ci-1", "ci-2", "ci-3", "ci-4"]) {
      const res = (await (await cp.request("POST", "/v1/tokens", { token: other, body: { name, role: "viewer" } })).json()) as { id: string };
      created.push(res.id);
    }
    const first = (await (await cp.request("GET", "/v1/tokens?limit=2", { token: other })).json()) as ListBody<{ id: string; name: string }>;
    expect(first.items.map((t) => t.name)).toEqual(["initial-admin", "ci-1"]);
    expect((await cp.request("DELETE", `/v1/tokens/${created[0]}`, { token: other })).status).toBe(204);
    const rest = await pages<{ id: string; name: string }>(other, "/v1/tokens?limit=2", first.metadata.continue);
    expect(rest.bodies.map((b) => b.items.map((t) => t.name))).toEqual([["ci-2", "ci-3"], ["ci-4"]]);
  });

  it("tenants: by id, a page at a time", async () => {
    const { bodies } = await pages<{ id: string }>(cp.operatorToken, "/v1/tenants?limit=1");
    expect(bodies.map((b) => b.items.map((t) => t.id))).toEqual([["acme"], ["bulky"], ["odd-names"], ["other"]]);
  });

  it("discovered objects: by cluster, then name, across clusters, filtered, and past a cluster deregistered between pages", async () => {
    const clusters = ["c-a", "c-b", "c-c"];
    for (const c of clusters) {
      await cp.store.discovered.replace("other", c, {
        meshes: [],
        workloads: [],
        destinations: ["ratings", "reviews", "web"].map((n) => destination(c, n === "web" ? "frontend" : "bookinfo", n)),
      });
    }
    const expected = clusters.flatMap((c) => [`ratings-bookinfo-${c}`, `reviews-bookinfo-${c}`, `web-frontend-${c}`]);
    for (const limit of [1, 2, 3, 4, 9, 10]) {
      const { bodies } = await pages(other, `/v1/destinations?limit=${limit}`);
      expect(namesOf(bodies), `limit ${limit}`).toEqual(expected);
      expect(bodies.every((b) => b.items.length <= limit)).toBe(true);
    }
    expect(namesOf((await pages(other, "/v1/destinations?limit=1&namespace=bookinfo")).bodies)).toEqual(expected.filter((n) => n.includes("bookinfo")));
    expect(namesOf((await pages(other, "/v1/destinations?limit=2&cluster=c-b")).bodies)).toEqual(expected.filter((n) => n.endsWith("c-b")));

    const first = (await (await cp.request("GET", "/v1/destinations?limit=4", { token: other })).json()) as ListBody;
    expect(first.items.map((i) => i.metadata.name)).toEqual(expected.slice(0, 4));
    expect((await cp.request("DELETE", "/v1/clusters/c-b", { token: other })).status).toBe(204);
    const rest = await pages(other, "/v1/destinations?limit=4", first.metadata.continue);
    expect(namesOf(rest.bodies)).toEqual(expected.filter((n) => n.endsWith("c-c")));
  });
});

describe("OpenAPI", () => {
  it("documents limit, continue and metadata.continue on every list", async () => {
    type Op = {
      parameters: { name: string; in: string; schema: { maximum?: number; default?: number } }[];
      responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, { properties?: Record<string, unknown> }> } }> }>;
    };
    const doc = (await (await cp.request("GET", "/openapi.json")).json()) as { paths: Record<string, Record<string, Op>> };
    const lists = Object.entries(doc.paths).flatMap(([path, ops]) => {
      const get = ops.get;
      const props = get?.responses["200"]?.content?.["application/json"]?.schema.properties;
      // The agent protocol's one list (an agent's authored resources, docs/gitops.md#the-agent-protocol) is not the user API's.
      return get && props?.items && !path.startsWith("/v1/agent/") ? [{ path, get, props }] : [];
    });
    expect(lists.map((l) => l.path).sort()).toEqual([
      "/v1/accesspolicies",
      "/v1/clusters",
      "/v1/destinations",
      "/v1/meshes",
      "/v1/tenants",
      "/v1/tokens",
      "/v1/trafficpolicies",
      "/v1/virtualmeshes",
      "/v1/workloads",
    ]);
    for (const { path, get, props } of lists) {
      const limit = get.parameters.find((p) => p.name === "limit" && p.in === "query");
      expect({ path, maximum: limit?.schema.maximum, default: limit?.schema.default }).toEqual({ path, maximum: 1000, default: 500 });
      expect(
        get.parameters.some((p) => p.name === "continue" && p.in === "query"),
        path,
      ).toBe(true);
      expect(Object.keys(props.metadata?.properties ?? {}), path).toEqual(["continue"]);
    }
  });
});
