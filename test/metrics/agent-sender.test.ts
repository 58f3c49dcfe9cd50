import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";
import { type MetricsReport, emptySignals, metricsReport } from "@meshplane/core";
import { type JWK, decodeJwt, exportJWK, generateKeyPair } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "../../packages/agent/src/control-plane/client";
import { MetricsLoop } from "../../packages/agent/src/metrics/loop";
import type { MinuteCounts } from "../../packages/agent/src/metrics/minute";
import { testLoopDeps } from "../../packages/agent/src/metrics/testing";

/**
 * The agent sending its metrics reports through its control-plane client to a control plane of the
 * test's own (node:http), which checks what the real one will: `POST /v1/agent/metrics`, an agent JWT
 * bound to POST, `Content-Encoding: gzip`, a body core's `metricsReport` accepts. It answers what the
 * test scripts: 202, 429 with Retry-After, 400 with a problem.
 */

interface Received {
  claims: Record<string, unknown>;
  encoding: string | undefined;
  report: MetricsReport;
}

const received: Received[] = [];
const answers: { status: number; headers?: Record<string, string>; body: unknown }[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/agent/metrics") return void res.writeHead(404).end();
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!token) return void res.writeHead(401).end();
      const report = metricsReport.parse(JSON.parse(gunzipSync(Buffer.concat(chunks)).toString()));
      received.push({ claims: decodeJwt(token), encoding: req.headers["content-encoding"], report });
      const answer = answers.shift() ?? { status: 202, body: { accepted: true } };
      res
        .writeHead(answer.status, { "content-type": answer.status < 300 ? "application/json" : "application/problem+json", ...answer.headers })
        .end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

async function agent() {
  const { privateKey, publicKey } = await generateKeyPair("ES256");
  const client = new ControlPlaneClient({ url, tenant: "acme", cluster: "cluster-1", key: { privateKey, publicJwk: (await exportJWK(publicKey)) as JWK } });
  const clock = { now: 1_700_000_085_000 };
  const logs: string[] = [];
  const edge = { source: { cluster: "east", namespace: "shop", workload: "web" }, destination: { cluster: "east", namespace: "shop", service: "api" } };
  const loop = new MetricsLoop(
    testLoopDeps({
      readMinute: async (start): Promise<MinuteCounts> => ({
        start,
        badValues: 0,
        edges: new Map([["k", { edge: { ...edge, protocol: "http", view: "server" }, signals: { ...emptySignals(), requests: 7 } }]]),
      }),
      post: (body) => client.postMetrics(body),
      log: { info: (m) => logs.push(m), error: (m) => logs.push(m) },
      sendEveryMs: 60_000,
      now: () => clock.now,
    }),
  );
  return { loop, clock, logs };
}

describe("sending metrics reports", () => {
  it("POSTs each gzipped, with an agent JWT for this cluster bound to POST, and keeps nothing the control plane took", async () => {
    const { loop } = await agent();
    received.length = 0;
    await loop.read();
    await loop.send();
    expect(received).toHaveLength(1);
    expect(received[0]?.encoding).toBe("gzip");
    expect(received[0]?.claims).toMatchObject({ sub: "cluster-1", tenant: "acme", htm: "POST", aud: url, iss: "agent" });
    expect(received[0]?.report).toMatchObject({ cluster: "cluster-1", istioClusterId: "east", health: { state: "ok" } });
    expect(received[0]?.report.minutes.map((m) => m.rows)).toEqual([[{ edge: 0, requests: 7 }]]);
    expect(loop.unsent()).toEqual([]);
  });

  it("on 429 keeps the minutes, waits at least Retry-After, then sends them with the next ones", async () => {
    const { loop, clock } = await agent();
    received.length = 0;
    answers.push({ status: 429, headers: { "retry-after": "90" }, body: { title: "Too Many Requests" } });
    await loop.read();
    await loop.send();
    expect(loop.unsent()).toHaveLength(1);
    expect(loop.due().sendAt).toBeGreaterThanOrEqual(clock.now + 90_000);
    clock.now += 90_000;
    await loop.read();
    await loop.send();
    expect(received.map((r) => r.report.minutes.length)).toEqual([1, 2]);
    expect(loop.unsent()).toEqual([]);
  });

  it("on 400 drops the report it will never take, and says why", async () => {
    const { loop, logs } = await agent();
    answers.push({ status: 400, body: { title: "Bad Request", errors: [{ path: "minutes.0.start", message: "must be a multiple of 60" }] } });
    await loop.read();
    await loop.send();
    expect(loop.unsent()).toEqual([]);
    expect(logs).toContain("metrics: report refused, its minutes are dropped");
  });
});
