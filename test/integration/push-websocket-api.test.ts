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
import type { ControlPlaneClient } from "../../packages/agent/src/client";
import { ApiGatewayConnections } from "../../functions/push/aws-notifier";
import { type WebSocketDeps, handleWebSocketEvent } from "../../functions/push/websocket-events";
import { translateTenant } from "../../functions/worker/translate-tenant";
import { createLogger } from "../../functions/shared/logger";
import { discoveryOf, registeredAgent } from "../support/agents";
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
  aws = new ApiGatewayConnections({ endpoint, region: "us-east-1", connections: cp.store.pushConnections, log, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
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
    expect(await cp.store.pushConnections.owner("conn-1=")).toEqual({ tenantId: "aws-push", cluster: "cluster-east" });
    expect(await connectWith("conn-x", undefined)).toMatchObject({ statusCode: 401, body: expect.stringContaining("bearer JWT") });
    expect(await connectWith("conn-y", await agent.token("POST"))).toMatchObject({ statusCode: 401, body: expect.stringContaining("the token is for POST, not GET") });
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
});
