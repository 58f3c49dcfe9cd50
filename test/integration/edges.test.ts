import { mkdtempSync } from "node:fs";
import { gunzipSync, gzipSync } from "node:zlib";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { registeredAgent } from "../support/agents";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import type { Destination, Mesh } from "@meshplane/core";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let token: string;

beforeAll(async () => {
  cp = await startControlPlane();
  token = await cp.tenant("edges");
});
afterAll(() => cp.stop());

const mesh = (cluster: string): Mesh => ({
  kind: "Mesh",
  metadata: { name: `istiod-istio--system-${cluster}`, cluster },
  spec: {
    type: "istio",
    cluster,
    namespace: "istio-system",
    version: "1.24.2",
    istio: { trustDomain: `${cluster}.local`, istiodServiceAccount: "istiod", smartDnsProxyingEnabled: false, gateways: [] },
  },
});
const destination = (cluster: string, namespace: string, name: string): Destination => ({
  kind: "Destination",
  metadata: { name: `${name}-${namespace}-${cluster}`, cluster },
  spec: {
    name,
    namespace,
    cluster,
    mesh: `istiod-istio--system-${cluster}`,
    labels: { app: name },
    selector: { app: name },
    ports: [{ name: "http", port: 9080, protocol: "TCP" }],
    subsets: {},
    endpoints: [],
    workloads: [],
  },
});

describe("discovered resources", () => {
  it("lists what agents reported, filtered by cluster, namespace and mesh", async () => {
    for (const c of ["c1", "c2"]) {
      await cp.request("POST", "/v1/clusters", { token, body: { name: c } });
      await cp.store.discovered.replace("edges", c, {
        meshes: [mesh(c)],
        workloads: [],
        destinations: [destination(c, "bookinfo", "reviews"), destination(c, "web", "frontend")],
      });
    }
    const names = async (path: string) =>
      ((await (await cp.request("GET", path, { token })).json()) as { items: { metadata: { name: string } }[] }).items.map((i) => i.metadata.name);
    expect(await names("/v1/meshes")).toEqual(["istiod-istio--system-c1", "istiod-istio--system-c2"]);
    expect(await names("/v1/destinations?cluster=c2")).toEqual(["frontend-web-c2", "reviews-bookinfo-c2"]);
    expect(await names("/v1/destinations?namespace=bookinfo")).toEqual(["reviews-bookinfo-c1", "reviews-bookinfo-c2"]);
    expect(await names("/v1/destinations?mesh=istiod-istio--system-c1")).toEqual(["frontend-web-c1", "reviews-bookinfo-c1"]);
    expect(await names("/v1/workloads")).toEqual([]);
    const bad = await cp.request("GET", "/v1/destinations?cluster=NOPE&colour=red", { token });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: { path: string }[] }).errors.map((e) => e.path).sort()).toEqual(["query.cluster", "query.colour"]);
  });
});

describe("unexpected errors", () => {
  it("become a bare 500 with a request id; the detail is logged, never echoed", async () => {
    const broken = await startControlPlane({ table: "no-such-table" });
    try {
      const res = await broken.request("GET", "/v1/trafficpolicies", { token: "mpt_averyvalidlookingtokenvalue0000000000000" });
      expect(res.status).toBe(500);
      const text = await res.text();
      const requestId = res.headers.get("x-request-id") as string;
      expect(text).toContain(requestId);
      expect(text).not.toMatch(/ResourceNotFound|no-such-table|stack/i);
      const logged = broken.logs.map((l) => JSON.parse(l) as { requestId?: string; level: string; error?: { name: string } });
      expect(logged.find((l) => l.requestId === requestId && l.level === "error")?.error?.name).toBe("ResourceNotFoundException");
    } finally {
      await broken.stop();
    }
  });
});

describe("OpenAPI", () => {
  it("documents every route with its schemas", async () => {
    const doc = (await (await cp.request("GET", "/openapi.json")).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/v1/tenants", "/v1/tokens/{id}", "/v1/clusters", "/v1/trafficpolicies/{name}", "/v1/apply", "/v1/destinations"]),
    );
    const spec = doc.paths["/v1/trafficpolicies"]?.post?.requestBody?.content["application/json"]?.schema.properties?.spec as {
      properties: { policy: { properties: Record<string, unknown> } };
    };
    expect(Object.keys(spec.properties.policy.properties)).toEqual(expect.arrayContaining(["trafficShift", "retries", "corsPolicy", "outlierDetection"]));
  });
});

describe("Lambda entry", () => {
  it("handles an API Gateway HTTP API v2 event with the same app", async () => {
    process.env.MESHPLANE_TABLE = cp.table;
    process.env.MESHPLANE_QUEUE_URL = `${inject("sqsEndpoint")}/000000000000/unused.fifo`;
    process.env.MESHPLANE_DYNAMODB_ENDPOINT = inject("dynamoEndpoint");
    process.env.MESHPLANE_SQS_ENDPOINT = inject("sqsEndpoint");
    process.env.MESHPLANE_SIGNING_KEY_FILE = join(mkdtempSync(join(tmpdir(), "lambda-keys-")), "keys.json");
    process.env.MESHPLANE_CA_KEK_FILE = join(mkdtempSync(join(tmpdir(), "lambda-kek-")), "ca-kek");
    await cp.request("POST", "/v1/apply", { token, body: { documents: [trafficPolicy("from-http")] } });
    const { handler } = await import("../../functions/entries/api");
    const event = {
      version: "2.0",
      routeKey: "$default",
      rawPath: "/v1/trafficpolicies/from-http",
      rawQueryString: "",
      headers: { authorization: `Bearer ${token}`, host: "api.example.com" },
      requestContext: {
        accountId: "123456789012",
        apiId: "api",
        domainName: "api.example.com",
        domainPrefix: "api",
        requestId: "r1",
        routeKey: "$default",
        stage: "$default",
        time: "22/Nov/2026:00:00:00 +0000",
        timeEpoch: Date.now(),
        http: { method: "GET", path: "/v1/trafficpolicies/from-http", protocol: "HTTP/1.1", sourceIp: "127.0.0.1", userAgent: "test" },
      },
      isBase64Encoded: false,
    };
    const out = (await handler(event as never, {} as never)) as { statusCode: number; body: string };
    expect(out.statusCode).toBe(200);
    expect((JSON.parse(out.body) as { metadata: { name: string } }).metadata.name).toBe("from-http");
    const denied = (await handler({ ...event, headers: {} } as never, {} as never)) as { statusCode: number };
    expect(denied.statusCode).toBe(401);

    // An agent's snapshot through the Lambda adapter: gzip bytes must come back base64-encoded, intact.
    const { key } = await registeredAgent(cp, token, "edges", "lambda-cluster");
    const jws = "header.payload.signature";
    await cp.store.snapshots.write(
      "edges",
      "lambda-cluster",
      undefined,
      { generation: 1, hash: `sha256:${"1".repeat(64)}`, signedAt: new Date().toISOString(), exp: 2e9 },
      gzipSync(jws),
    );
    const lambdaClient = new ControlPlaneClient({ url: "https://api.example.com", tenant: "edges", cluster: "lambda-cluster", key });
    const snap = (await handler(
      {
        ...event,
        rawPath: "/v1/agent/snapshot",
        headers: { authorization: `Bearer ${await lambdaClient.token()}`, host: "api.example.com", "accept-encoding": "gzip" },
        requestContext: { ...event.requestContext, http: { ...event.requestContext.http, path: "/v1/agent/snapshot" } },
      } as never,
      {} as never,
    )) as { statusCode: number; body: string; isBase64Encoded: boolean; headers: Record<string, string> };
    expect(snap.statusCode).toBe(200);
    expect(snap.isBase64Encoded).toBe(true);
    expect(gunzipSync(Buffer.from(snap.body, "base64")).toString()).toBe(jws);
  });
});
