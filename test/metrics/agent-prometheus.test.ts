import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { MetricsLoop } from "../../packages/agent/src/metrics/loop";
import { readMinute } from "../../packages/agent/src/metrics/minute";
import { type PrometheusAuth, PrometheusClient, PrometheusError } from "../../packages/agent/src/metrics/prometheus";
import { testLoopDeps } from "../../packages/agent/src/metrics/testing";

/**
 * The agent's Prometheus client against servers that misbehave, each a node:http server of the
 * test's own: one that hangs, one that is gone, one that answers HTML, truncated JSON, an error, too
 * much. Every one is a PrometheusError naming what went wrong, within the deadline, and a cluster
 * whose Prometheus does so reports it in its health; nothing throws past the loop.
 */

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
const servers: Server[] = [];

async function serve(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => handler(req, body, res));
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A port nothing listens on: one a server had, closed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((ok) => server.close(() => ok()));
  return `http://127.0.0.1:${port}`;
}

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((ok) => s.close(() => ok()));
  }
});

const SECRETS: Record<string, string> = { "/s/token": "tok-3f9a\n", "/s/username": "reader", "/s/password": "pa:ss" };
const client = (url: string, over: { auth?: PrometheusAuth; orgId?: string; maxBodyBytes?: number; timeoutMs?: number } = {}) =>
  new PrometheusClient({
    url,
    auth: over.auth ?? { type: "none" },
    ...(over.orgId ? { orgId: over.orgId } : {}),
    timeoutMs: over.timeoutMs ?? 1000,
    maxSeries: 5000,
    maxBodyBytes: over.maxBodyBytes ?? 1024 * 1024,
    readFile: (p) => {
      const v = SECRETS[p];
      if (v === undefined) throw new Error(`ENOENT: ${p}`);
      return v;
    },
  });
const json =
  (status: number, body: unknown): Handler =>
  (_req, _body, res) =>
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
const vector = (result: unknown[]) => ({ status: "success", data: { resultType: "vector", result } });

/** The error a query ends in, and how long it took. */
async function failure(c: PrometheusClient): Promise<{ error: PrometheusError; ms: number }> {
  const t = Date.now();
  const error = await c.query("up", 1_700_000_000).then(
    () => expect.unreachable("the query succeeded"),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PrometheusError);
  return { error: error as PrometheusError, ms: Date.now() - t };
}

const row = (code: string, value: string) => ({
  metric: { edge: "east|shop|web|east|shop|api|http", view: "server", response_code: code },
  value: [1, value],
});

describe("the Prometheus client", () => {
  it("POSTs a form with the query, its time, timeout and series limit, and the credentials and org the options name", async () => {
    const seen: { headers: IncomingMessage["headers"]; form: URLSearchParams; url: string }[] = [];
    const url = await serve((req, body, res) => {
      seen.push({ headers: req.headers, form: new URLSearchParams(body), url: req.url ?? "" });
      json(
        200,
        vector([
          { metric: { a: "1" }, value: [1, "42"] },
          { metric: {}, value: [1, "+Inf"] },
        ]),
      )(req, body, res);
    });
    const answer = await client(`${url}/prometheus/`, { auth: { type: "bearer", tokenFile: "/s/token" }, orgId: "acme" }).query("sum(up)", 1_700_000_060);
    expect(answer).toEqual([
      { metric: { a: "1" }, value: 42 },
      { metric: {}, value: Number.POSITIVE_INFINITY },
    ]);
    await client(url, { auth: { type: "basic", usernameFile: "/s/username", passwordFile: "/s/password" } }).query("up", 60);
    expect(seen[0]?.url).toBe("/prometheus/api/v1/query");
    expect(Object.fromEntries(seen[0]?.form ?? [])).toEqual({ query: "sum(up)", time: "1700000060", timeout: "1s", limit: "5000" });
    expect(seen[0]?.headers).toMatchObject({ authorization: "Bearer tok-3f9a", "x-scope-orgid": "acme", "content-type": "application/x-www-form-urlencoded" });
    expect(seen[1]?.headers.authorization).toBe(`Basic ${Buffer.from("reader:pa:ss").toString("base64")}`);
    expect(seen[1]?.headers["x-scope-orgid"]).toBeUndefined();
  });

  it.each<[string, Handler | "closed", string, RegExp]>([
    ["hangs", () => undefined, "timeout", /did not answer within 1 s/],
    [
      "sends headers, then never the end",
      (_q, _b, res) => void res.writeHead(200, { "content-type": "application/json" }).write('{"status":'),
      "timeout",
      /did not answer/,
    ],
    ["is gone", "closed", "unreachable", /unreachable: ECONNREFUSED/],
    [
      "is a proxy's 502 page",
      (_q, _b, res) => void res.writeHead(502, { "content-type": "text/html" }).end("<html>Bad Gateway</html>"),
      "http",
      /answered 502 \(text\/html\)/,
    ],
    [
      "answers HTML with 200",
      (_q, _b, res) => void res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><p>sign in"),
      "malformed",
      /not JSON \(text\/html/,
    ],
    [
      "answers truncated JSON",
      (_q, _b, res) => void res.writeHead(200, { "content-type": "application/json" }).end('{"status":"success","data":{"resultT'),
      "malformed",
      /not JSON/,
    ],
    [
      "refuses the query",
      json(422, { status: "error", errorType: "execution", error: "query processing would load too many samples" }),
      "query",
      /refused the query \(422 execution: query processing/,
    ],
    ["answers 503 with no body", (_q, _b, res) => void res.writeHead(503).end(), "http", /answered 503/],
    ["answers a matrix", json(200, { status: "success", data: { resultType: "matrix", result: [] } }), "malformed", /a matrix result, not an instant vector/],
    ["answers a sample with no value", json(200, vector([{ metric: {} }])), "malformed", /malformed sample \(result 0\)/],
    ["answers success without data", json(200, { status: "success" }), "malformed", /a missing result/],
    ["cut its answer at the limit", json(200, { ...vector([]), warnings: ["results truncated due to limit"] }), "truncated", /more than 5000 series/],
    [
      "answers more than the client reads",
      json(200, vector(Array.from({ length: 100 }, (_, i) => ({ metric: { i: String(i) }, value: [1, "1"] })))),
      "too-large",
      /more than 1024 bytes/,
    ],
  ])("that %s is an error saying so, within the deadline", async (_what, handler, kind, message) => {
    const url = handler === "closed" ? await closedPort() : await serve(handler);
    const { error, ms } = await failure(client(url, { maxBodyBytes: 1024 }));
    expect([error.kind, error.message]).toEqual([kind, expect.stringMatching(message)]);
    expect(error.message).toContain(`Prometheus at ${url}`);
    expect(ms).toBeLessThan(3000);
  });

  it("never puts a credential in a message, and says which file it could not read", async () => {
    const url = await serve((_q, _b, res) => void res.writeHead(401, { "content-type": "text/plain" }).end("Bearer tok-3f9a is not valid"));
    const { error } = await failure(client(url, { auth: { type: "bearer", tokenFile: "/s/token" } }));
    expect(error.message).not.toContain("tok-3f9a");
    const missing = await failure(client(url, { auth: { type: "bearer", tokenFile: "/s/missing" } }));
    expect([missing.error.kind, missing.error.message]).toEqual(["auth-file", "the Prometheus token cannot be read from /s/missing (metrics.prometheus.auth)"]);
    expect(() => client("http://user:secret@prom:9090")).toThrow(/must not carry credentials/);
  });

  it("leaves out values that are no counts, and counts them", async () => {
    const url = await serve((req, body, res) => {
      const q = new URLSearchParams(body).get("query") ?? "";
      json(200, vector(q.includes("istio_requests_total") ? [row("200", "NaN"), row("500", "-Inf"), row("404", "3")] : []))(req, body, res);
    });
    const minute = await readMinute(client(url), 1_700_000_040, new Set());
    expect(minute.badValues).toBe(2);
    expect([...minute.edges.values()].map((e) => e.signals.requests)).toEqual([3]);
  });
});

describe("a cluster whose Prometheus misbehaves", () => {
  it.each<[string, Handler | "closed", RegExp]>([
    ["hangs", () => undefined, /did not answer within 1 s/],
    ["is gone", "closed", /unreachable/],
    ["answers garbage", (_q, _b, res) => void res.writeHead(200).end("<html>"), /not JSON/],
  ])("that %s reads nothing, says so in its health and throws nothing", async (_what, handler, message) => {
    const url = handler === "closed" ? await closedPort() : await serve(handler);
    const prometheus = client(url);
    const loop = new MetricsLoop(testLoopDeps({ readMinute: (start, relays) => readMinute(prometheus, start, relays) }));
    const t = Date.now();
    await loop.read();
    expect(Date.now() - t).toBeLessThan(3000);
    expect(loop.unsent()).toEqual([]);
    expect(loop.currentHealth()).toEqual({ state: "unavailable", message: expect.stringMatching(message) });
  });
});
