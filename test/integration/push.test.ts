/**
 * The push channel's server side on the real local control plane (DynamoDB Local, the SQS emulator):
 * who may connect, what they are told and when, and what ends a connection.
 */
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { pushUrl } from "@meshplane/core";
import type { ControlPlaneClient } from "../../packages/agent/src/client";
import { agentKey, discoveryOf, registeredAgent } from "../support/agents";
import { type ControlPlane, startControlPlane, trafficPolicy } from "../support/control-plane";

let cp: ControlPlane;
let admin: string;
let agent: ControlPlaneClient;
const open: WebSocket[] = [];

/** Opens the channel with `token`; resolves with the socket and the messages it gets, or the refusal's status. */
function connect(token: string | undefined): Promise<{ ws: WebSocket; messages: unknown[] } | { refused: number; body: string }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(pushUrl(cp.url), token ? { headers: { authorization: `Bearer ${token}` } } : {});
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
  ({ client: agent } = await registeredAgent(cp, admin, "pushed", "cluster-east"));
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
    const published = Date.now();
    await cp.work();
    const next = await until("the next generation", () => channel.messages.find((m) => (m as { generation: number }).generation > first.generation));
    expect(Date.now() - published).toBeLessThan(1_000);
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
      .setIssuer("agent").setSubject("cluster-east").setAudience(cp.url).setIssuedAt().setExpirationTime("1m").setJti(crypto.randomUUID())
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

  it("holds at most four connections for a cluster", async () => {
    for (const ws of open.splice(0)) ws.terminate();
    await until("the old connections gone", () => (cp.push.connections("pushed", "cluster-east") === 0 ? true : undefined));
    for (let i = 0; i < 4; i++) expect("ws" in (await connect(await agent.token("GET")))).toBe(true);
    expect(await connect(await agent.token("GET"))).toMatchObject({ refused: 429 });
  });
});
