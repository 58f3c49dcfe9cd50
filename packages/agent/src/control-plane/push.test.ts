import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { PushChannel } from "./push";

const servers: WebSocketServer[] = [];
const channels: PushChannel[] = [];

afterEach(async () => {
  for (const c of channels.splice(0)) c.stop();
  for (const s of servers.splice(0)) await new Promise((ok) => s.close(ok));
});

async function server(): Promise<{ wss: WebSocketServer; url: string }> {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1", path: "/v1/agent/push" });
  servers.push(wss);
  await new Promise((ok) => wss.once("listening", ok));
  return { wss, url: `http://127.0.0.1:${(wss.address() as AddressInfo).port}` };
}

const until = async (what: string, check: () => boolean) => {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

const quiet = { info: () => undefined, error: () => undefined };

describe("PushChannel", () => {
  it("connects with the agent's bearer token, hands on generations, ignores anything malformed, and pings", async () => {
    const { wss, url } = await server();
    const auth: string[] = [];
    const pings: string[] = [];
    wss.on("connection", (ws, req) => {
      auth.push(req.headers.authorization ?? "");
      ws.on("message", (data) => pings.push(String(data)));
      ws.send('{"type":"generation","generation":3}');
      ws.send('{"type":"generation","generation":4,"objects":[]}');
      ws.send("not json");
      ws.send('{"type":"apply","objects":[]}');
      ws.send('{"type":"generation","generation":5}');
    });
    const seen: (number | undefined)[] = [];
    const channel = new PushChannel({ controlPlaneUrl: url, token: async () => "jwt-1", onGeneration: (g) => seen.push(g), log: quiet, pingMs: 20 });
    channels.push(channel);
    channel.start();
    await until("two generations", () => seen.length >= 3);
    // Opening is a reason to look too (a generation may have been published while it was down).
    expect(seen).toEqual([undefined, 3, 5]);
    expect(auth).toEqual(["Bearer jwt-1"]);
    await until("a ping", () => pings.length > 0);
    expect(pings[0]).toBe('{"type":"ping"}');
  });

  it("reconnects with a fresh token after the control plane closes the channel or refuses it", async () => {
    const { wss, url } = await server();
    let connections = 0;
    wss.on("connection", (ws) => {
      connections++;
      if (connections === 1) ws.close(1001, "restarting");
      else ws.send('{"type":"generation","generation":9}');
    });
    let tokens = 0;
    const seen: (number | undefined)[] = [];
    const channel = new PushChannel({
      controlPlaneUrl: url,
      token: async () => `jwt-${++tokens}`,
      onGeneration: (g) => seen.push(g),
      log: quiet,
      random: () => 0,
    });
    channels.push(channel);
    channel.start();
    await until("the generation after reconnecting", () => seen.includes(9));
    expect(connections).toBe(2);
    expect(tokens).toBe(2);
  });

  it("opens the channel at an explicit push URL (a WebSocket API of its own, as on AWS)", async () => {
    const { wss, url } = await server();
    let connected = 0;
    wss.on("connection", () => connected++);
    const opened: (number | undefined)[] = [];
    const channel = new PushChannel({
      controlPlaneUrl: "https://api.example.invalid",
      pushUrl: `${url.replace("http:", "ws:")}/v1/agent/push`,
      token: async () => "jwt",
      onGeneration: (g) => opened.push(g),
      log: quiet,
    });
    channels.push(channel);
    channel.start();
    await until("the connection", () => connected === 1 && opened.length === 1);
    expect(opened).toEqual([undefined]);
  });

  it("keeps trying a control plane that is not there, and stops when told", async () => {
    const { wss, url } = await server();
    await new Promise((ok) => wss.close(ok));
    servers.length = 0;
    let tokens = 0;
    const channel = new PushChannel({ controlPlaneUrl: url, token: async () => `jwt-${++tokens}`, onGeneration: () => undefined, log: quiet, random: () => 0 });
    channel.start();
    await until("a few attempts", () => tokens >= 3);
    channel.stop();
    const after = tokens;
    await new Promise((r) => setTimeout(r, 100));
    expect(tokens).toBe(after);
    expect(channel.connected).toBe(false);
  });
});
