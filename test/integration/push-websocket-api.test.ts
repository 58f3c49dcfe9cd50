/**
 * The push channel as it runs on AWS (docs/push.md): the WebSocket API's route handler against the
 * real store on DynamoDB Local, and the worker's notifier posting through the AWS SDK's API Gateway
 * management client. API Gateway itself does not run here: its management endpoint is a small HTTP
 * server on loopback that records what the SDK sends and answers as API Gateway does (410 for a
 * connection it no longer has).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { ApiGatewayConnections } from "../../functions/push/aws-notifier";
import { type WebSocketDeps, handleWebSocketEvent } from "../../functions/push/websocket-events";
import { translateTenant } from "../../functions/translation/job";
import { createLogger } from "../../functions/shared/logger";
import { agentGetToken, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;
let agent: ControlPlaneClient;
let management: Server;
let endpoint: string;
const calls: { method: string; connection: string; body: string }[] = [];
let aws: ApiGatewayConnections;
let deps: WebSocketDeps;

const event = (routeKey: string, connectionId: string, extra: Record<string, unknown> = {}) => ({ requestContext: { routeKey, connectionId }, ...extra });
const connectWith = async (connectionId: string, token: string | undefined) =>
  handleWebSocketEvent(deps, event("$connect", connectionId, { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } }));

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("aws-push");
  ({ client: agent } = await registeredAgent(cp, admin, "aws-push", "cluster-east"));
  await agent.discovery(discoveryOf("istio-bookinfo", "cluster-east") as never);
  await cp.work();
  management = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const connection = decodeURIComponent((req.url ?? "").split("/").pop() ?? "");
      calls.push({ method: req.method ?? "", connection, body });
      res.statusCode = connection.startsWith("gone") ? 410 : 200;
      res.setHeader("content-type", "application/json");
      res.end(connection.startsWith("gone") ? '{"message":"GoneException"}' : "");
    });
  });
  await new Promise<void>((ok) => management.listen(0, "127.0.0.1", ok));
  endpoint = `http://127.0.0.1:${(management.address() as AddressInfo).port}/live`;
  const log = createLogger({ service: "push" }, () => undefined);
  aws = new ApiGatewayConnections({
    endpoint,
    region: "us-east-1",
    connections: cp.store.pushConnections,
    log,
    now: () => cp.clock.now,
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  deps = { store: cp.store, now: () => cp.clock.now, log, publicUrl: cp.url, close: (id) => aws.close(id) };
}, 120_000);

afterAll(async () => {
  management?.close();
  await cp?.stop();
});

describe("push channel on the WebSocket API", () => {
  it("records a connection made with a valid agent token for GET, and refuses others before they open", async () => {
    expect(await connectWith("conn-1=", await agent.token("GET"))).toEqual({ statusCode: 200 });
    expect(await cp.store.pushConnections.list("aws-push", "cluster-east")).toEqual(["conn-1="]);
    expect(await cp.store.pushConnections.owner("conn-1=")).toMatchObject({
      tenantId: "aws-push",
      cluster: "cluster-east",
      expiresAt: expect.any(Number),
      agentKid: expect.any(String),
    });
    expect(await connectWith("conn-x", undefined)).toMatchObject({ statusCode: 401, body: expect.stringContaining("bearer JWT") });
    expect(await connectWith("conn-y", await agent.token("POST"))).toMatchObject({
      statusCode: 401,
      body: expect.stringContaining("the token is for POST, not GET"),
    });
    expect(await handleWebSocketEvent(deps, { requestContext: { routeKey: "$connect" } })).toMatchObject({ statusCode: 400 });
    expect((await cp.store.pushConnections.list("aws-push", "cluster-east")).sort()).toEqual(["conn-1="]);
  });

  it("holds at most four connections for a cluster", async () => {
    for (const id of ["conn-2", "conn-3", "gone-4"]) expect(await connectWith(id, await agent.token("GET"))).toEqual({ statusCode: 200 });
    expect(await connectWith("conn-5", await agent.token("GET"))).toMatchObject({ statusCode: 429 });
    expect((await cp.store.pushConnections.list("aws-push", "cluster-east")).length).toBe(4);
  });

  it("answers a ping with a pong, and closes a connection that says anything else", async () => {
    expect(await handleWebSocketEvent(deps, event("$default", "conn-2", { body: '{"type":"ping"}' }))).toEqual({ statusCode: 200, body: '{"type":"pong"}' });
    calls.length = 0;
    expect(await handleWebSocketEvent(deps, event("$default", "conn-2", { body: '{"type":"apply","objects":[]}' }))).toMatchObject({ statusCode: 400 });
    expect(calls).toEqual([{ method: "DELETE", connection: "conn-2", body: "" }]);
    expect(await handleWebSocketEvent(deps, event("$disconnect", "conn-2"))).toEqual({ statusCode: 200 });
    expect((await cp.store.pushConnections.list("aws-push", "cluster-east")).sort()).toEqual(["conn-1=", "conn-3", "gone-4"]);
    expect(await cp.store.pushConnections.owner("conn-2")).toBeUndefined();
  });

  it("the worker tells every connection of the cluster its new generation, and forgets one API Gateway no longer has", async () => {
    calls.length = 0;
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [trafficPolicy("reviews-timeout")] } })).status).toBe(200);
    const tenant = await cp.store.tenants.get("aws-push");
    await translateTenant({ ...cp.worker, push: aws }, { tenantId: "aws-push", revision: tenant.revision });
    const generation = (await cp.store.snapshots.head("aws-push", "cluster-east", true))?.snapshot?.generation;
    expect(generation).toBeGreaterThan(1);
    expect(calls.filter((c) => c.method === "POST").sort((a, b) => a.connection.localeCompare(b.connection))).toEqual(
      ["conn-1=", "conn-3", "gone-4"].map((connection) => ({ method: "POST", connection, body: JSON.stringify({ type: "generation", generation }) })),
    );
    expect((await cp.store.pushConnections.list("aws-push", "cluster-east")).sort()).toEqual(["conn-1=", "conn-3"]);
  });

  it("spends the token that opens a connection: one captured token opens one, not the cluster's four", async () => {
    const { client } = await registeredAgent(cp, admin, "aws-push", "cluster-spent");
    const token = await client.token("GET");
    expect(await connectWith("spent-1", token)).toEqual({ statusCode: 200 });
    for (const id of ["spent-2", "spent-3", "spent-4"])
      expect(await connectWith(id, token)).toMatchObject({ statusCode: 401, body: expect.stringContaining("jti already used") });
    expect(await cp.store.pushConnections.list("aws-push", "cluster-spent")).toEqual(["spent-1"]);
  });

  it("closes a connection whose token has expired at its next ping, and the worker tells it nothing but closes it", async () => {
    const { key } = await registeredAgent(cp, admin, "aws-push", "cluster-expiring");
    expect(await connectWith("short-1", await agentGetToken(cp, key, "aws-push", "cluster-expiring", 30))).toEqual({ statusCode: 200 });
    expect(await connectWith("short-2", await agentGetToken(cp, key, "aws-push", "cluster-expiring", 30))).toEqual({ statusCode: 200 });
    expect(await connectWith("long-1", await agentGetToken(cp, key, "aws-push", "cluster-expiring", 300))).toEqual({ statusCode: 200 });
    const was = cp.clock.now;
    cp.clock.now = new Date(was.getTime() + 60_000);
    try {
      calls.length = 0;
      expect(await handleWebSocketEvent(deps, event("$default", "short-1", { body: '{"type":"ping"}' }))).toMatchObject({
        statusCode: 401,
        body: expect.stringContaining("expired"),
      });
      expect(calls).toEqual([{ method: "DELETE", connection: "short-1", body: "" }]);
      expect(await cp.store.pushConnections.owner("short-1")).toBeUndefined();
      calls.length = 0;
      await aws.published("aws-push", "cluster-expiring", 42);
      expect(calls.sort((a, b) => a.connection.localeCompare(b.connection))).toEqual([
        { method: "POST", connection: "long-1", body: JSON.stringify({ type: "generation", generation: 42 }) },
        { method: "DELETE", connection: "short-2", body: "" },
      ]);
      expect(await cp.store.pushConnections.list("aws-push", "cluster-expiring")).toEqual(["long-1"]);
      expect(await handleWebSocketEvent(deps, event("$default", "long-1", { body: '{"type":"ping"}' }))).toEqual({ statusCode: 200, body: '{"type":"pong"}' });
    } finally {
      cp.clock.now = was;
    }
  });

  it("closes the connections of a deregistered cluster at their next ping", async () => {
    const { client } = await registeredAgent(cp, admin, "aws-push", "cluster-gone");
    expect(await connectWith("gone-cluster-1", await client.token("GET"))).toEqual({ statusCode: 200 });
    expect((await cp.request("DELETE", "/v1/clusters/cluster-gone", { token: admin })).status).toBe(204);
    calls.length = 0;
    expect(await handleWebSocketEvent(deps, event("$default", "gone-cluster-1", { body: '{"type":"ping"}' }))).toMatchObject({
      statusCode: 401,
      body: "the cluster is deregistered",
    });
    expect(calls).toEqual([{ method: "DELETE", connection: "gone-cluster-1", body: "" }]);
    expect(await cp.store.pushConnections.owner("gone-cluster-1")).toBeUndefined();
    expect(await connectWith("gone-cluster-2", await client.token("GET"))).toMatchObject({ statusCode: 401 });
  });
});
