/**
 * The push channel's server side on the real local control plane (DynamoDB Local, the SQS emulator):
 * who may connect, what they are told and when, and what ends a connection.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { MAX_AGENT_TOKEN_SECONDS, pushUrl } from "@meshplane/core";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { PushHub } from "../../functions/push/hub";
import { agentGetToken, agentKey, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;
let agent: ControlPlaneClient;
let agentKeys: Awaited<ReturnType<typeof agentKey>>;
const open: WebSocket[] = [];

/** Opens the channel with `token`; resolves with the socket and the messages it gets, or the refusal's status. */
function connect(token: string | undefined, url = pushUrl(cp.url)): Promise<{ ws: WebSocket; messages: unknown[] } | { refused: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    const messages: unknown[] = [];
    ws.on("message", (data) => messages.push(JSON.parse(String(data))));
    ws.on("open", () => {
      open.push(ws);
      resolve({ ws, messages });
    });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ refused: res.statusCode ?? 0, body }));
    });
    ws.on("error", () => undefined);
  });
}

/** The code and reason a socket is closed with. */
const closeOf = (ws: WebSocket) =>
  new Promise<{ code: number; reason: string }>((ok) => ws.once("close", (code, reason) => ok({ code, reason: String(reason) })));

const until = async <T>(what: string, check: () => T | undefined, ms = 5_000): Promise<T> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

beforeAll(async () => {
  cp = await startControlPlane();
  admin = await cp.tenant("pushed");
  ({ client: agent, key: agentKeys } = await registeredAgent(cp, admin, "pushed", "cluster-east"));
  await agent.discovery(discoveryOf("istio-bookinfo", "cluster-east") as never);
  await cp.work();
});

afterAll(async () => {
  for (const ws of open) ws.terminate();
  await cp?.stop();
});

describe("push channel", () => {
  it("tells a connected agent its current generation, then each new one as soon as it is published", async () => {
    const channel = await connect(await agent.token("GET"));
    if (!("ws" in channel)) throw new Error(`refused: ${channel.refused}`);
    const first = (await until("the current generation", () => channel.messages[0])) as { type: string; generation: number };
    expect(first).toEqual({ type: "generation", generation: expect.any(Number) });
    expect(cp.push.connections("pushed", "cluster-east")).toBe(1);
    expect((await cp.request("POST", "/v1/apply", { token: admin, body: { documents: [trafficPolicy("reviews-timeout")] } })).status).toBe(200);
    await cp.work();
    // Told, not polled: nothing here fetches until the message has come.
    const next = await until("the next generation", () => channel.messages.find((m) => (m as { generation: number }).generation > first.generation));
    // What it names is what the agent then fetches: the generation it is told is the one served.
    const answer = await agent.snapshot();
    expect(answer.changed).toBe(true);
    expect((next as { generation: number }).generation).toBe((await cp.store.snapshots.head("pushed", "cluster-east", true))?.snapshot?.generation);
  });

  it("refuses a connection without a valid agent token for GET, before it is open", async () => {
    expect(await connect(undefined)).toMatchObject({ refused: 401 });
    const stranger = await agentKey();
    const forged = await new SignJWT({ tenant: "pushed", htm: "GET" })
      .setProtectedHeader({ alg: "ES256", kid: "not-registered" })
      .setIssuer("agent")
      .setSubject("cluster-east")
      .setAudience(cp.url)
      .setIssuedAt()
      .setExpirationTime("1m")
      .setJti(crypto.randomUUID())
      .sign(stranger.privateKey);
    expect(await connect(forged)).toMatchObject({ refused: 401, body: expect.stringContaining("no agent with this key") });
    expect(await connect(await agent.token("POST"))).toMatchObject({ refused: 401, body: expect.stringContaining("the token is for POST, not GET") });
    // A token minted now is expired ten minutes on, by the control plane's clock.
    const stale = await agent.token("GET");
    const was = cp.clock.now;
    cp.clock.now = new Date(Date.now() + 10 * 60_000);
    try {
      expect(await connect(stale)).toMatchObject({ refused: 401 });
    } finally {
      cp.clock.now = was;
    }
  });

  it("closes a channel on which the agent says anything but ping, and answers a ping", async () => {
    const channel = await connect(await agent.token("GET"));
    if (!("ws" in channel)) throw new Error("refused");
    channel.ws.send('{"type":"ping"}');
    await until("a pong", () => channel.messages.find((m) => (m as { type: string }).type === "pong"));
    const closed = new Promise<number>((ok) => channel.ws.once("close", (code) => ok(code)));
    channel.ws.send('{"type":"apply","objects":[]}');
    expect(await closed).toBe(1008);
  });

  it("spends the token that opens a channel: one captured token opens one channel, not the cluster's four", async () => {
    const token = await agent.token("GET");
    const first = await connect(token);
    expect("ws" in first).toBe(true);
    for (let i = 0; i < 4; i++) expect(await connect(token)).toMatchObject({ refused: 401, body: expect.stringContaining("jti already used") });
    expect(cp.push.connections("pushed", "cluster-east")).toBeLessThanOrEqual(4);
    // The agent's own fresh token still gets a slot.
    expect("ws" in (await connect(await agent.token("GET")))).toBe(true);
    for (const ws of open.splice(0)) ws.terminate();
  });

  it("holds at most four connections for a cluster", async () => {
    for (const ws of open.splice(0)) ws.terminate();
    await until("the old connections gone", () => (cp.push.connections("pushed", "cluster-east") === 0 ? true : undefined));
    for (let i = 0; i < 4; i++) expect("ws" in (await connect(await agent.token("GET")))).toBe(true);
    expect(await connect(await agent.token("GET"))).toMatchObject({ refused: 429 });
  });
});

describe("the end of a push channel: its token's expiry, its cluster deregistered or re-keyed", () => {
  // A hub of its own that looks at its channels every 2 s (a round also drops a channel that did not
  // answer the last ping: shorter rounds drop live channels on a busy machine), on a server of its
  // own; tokens name the control plane's URL, its audience.
  let hub: PushHub;
  let url: string;
  const server = createServer();

  beforeAll(async () => {
    hub = new PushHub({ store: cp.store, now: () => cp.clock.now, log: cp.worker.log, publicUrl: cp.url, pingMs: 2_000 });
    hub.attach(server);
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    url = pushUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    hub.close();
    await new Promise((ok) => server.close(ok));
  });

  it("closes a channel when the token it was opened with expires", async () => {
    const channel = await connect(await agentGetToken(cp, agentKeys, "pushed", "cluster-east", 2), url);
    if (!("ws" in channel)) throw new Error(`refused: ${channel.refused} ${channel.body}`);
    expect(await closeOf(channel.ws)).toEqual({ code: 4001, reason: expect.stringContaining("expired") });
  });

  it("a channel opened with the agent's push token lasts as long as the control plane allows a token, then closes", async () => {
    const channel = await connect(await agent.pushToken(), url);
    if (!("ws" in channel)) throw new Error(`refused: ${channel.refused} ${channel.body}`);
    let closed: { code: number; reason: string } | undefined;
    void closeOf(channel.ws).then((c) => (closed = c));
    let pings = 0;
    channel.ws.on("ping", () => pings++);
    try {
      // Some seconds short of the longest lifetime: three rounds of the hub later, the channel is open.
      cp.clock.now = new Date(Date.now() + (MAX_AGENT_TOKEN_SECONDS - 10) * 1000);
      await until("three rounds of the hub, or a close", () => (pings >= 3 || closed !== undefined ? true : undefined), 30_000);
      expect(closed).toBeUndefined();
      cp.clock.now = new Date(Date.now() + (MAX_AGENT_TOKEN_SECONDS + 1) * 1000);
      expect(await until("the close", () => closed, 30_000)).toEqual({ code: 4001, reason: expect.stringContaining("expired") });
    } finally {
      cp.clock.now = new Date();
    }
  });

  it("closes the channels of a cluster once it is deregistered, and refuses new ones", async () => {
    const { client } = await registeredAgent(cp, admin, "pushed", "cluster-gone");
    const channels = [await connect(await client.token("GET"), url), await connect(await client.token("GET"), url)];
    const sockets = channels.map((c) => ("ws" in c ? c.ws : undefined));
    if (sockets.some((ws) => ws === undefined)) throw new Error(`refused: ${JSON.stringify(channels)}`);
    await until("both channels held", () => (hub.connections("pushed", "cluster-gone") === 2 ? true : undefined), 30_000);
    const closes = sockets.map((ws) => closeOf(ws as WebSocket));
    const token = await client.token("GET");
    expect((await cp.request("DELETE", "/v1/clusters/cluster-gone", { token: admin })).status).toBe(204);
    for (const closed of await Promise.all(closes)) expect(closed).toEqual({ code: 1008, reason: "the cluster is deregistered" });
    await until("the hub to let go of them", () => (hub.connections("pushed", "cluster-gone") === 0 ? true : undefined), 30_000);
    expect(await connect(token, url)).toMatchObject({ refused: 401 });
  });

  it("closes the channels opened with an agent key the cluster no longer has", async () => {
    const { client } = await registeredAgent(cp, admin, "pushed", "cluster-rekeyed");
    const channel = await connect(await client.token("GET"), url);
    if (!("ws" in channel)) throw new Error(`refused: ${channel.refused} ${channel.body}`);
    const closed = closeOf(channel.ws);
    // The cluster's agent registers again with a new key (a new bootstrap token, as after a reinstall).
    const issued = await cp.request("POST", "/v1/clusters/cluster-rekeyed/bootstrap-token", { token: admin });
    expect(issued.status).toBe(201);
    const { bootstrapToken } = (await issued.json()) as { bootstrapToken: string };
    await ControlPlaneClient.register(cp.url, bootstrapToken, (await agentKey()).publicJwk, "test");
    expect(await closed).toEqual({ code: 1008, reason: "the cluster's agent key changed" });
  });
});
