import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, createHttpClient, retryAfterSeconds } from "./index";

const retryAfterOf = (value?: string) => retryAfterSeconds(new Headers(value === undefined ? {} : { "retry-after": value }));

/** A real HTTP server: each test says how it answers and reads back what was asked. */
let answer: (req: IncomingMessage, body: string, res: ServerResponse) => void = (_req, _body, res) => res.end();
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => answer(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const problem = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/problem+json", ...headers });
  res.end(JSON.stringify(body));
};

describe("the HTTP client", () => {
  it("sends the bearer credential and JSON, and reads JSON, text and empty answers", async () => {
    const seen: { auth?: string; type?: string; body?: string }[] = [];
    answer = (req, body, res) => {
      seen.push({ auth: req.headers.authorization, type: req.headers["content-type"], body });
      if (req.url === "/json") res.writeHead(200, { "content-type": "application/json" }).end('{"a":1}');
      else if (req.url === "/text") res.writeHead(200, { "content-type": "text/plain" }).end("hello");
      else res.writeHead(204).end();
    };
    const http = createHttpClient({ baseUrl: `${url}/`, token: () => "mpt_x" });
    expect((await http.request("POST", "/json", { body: { b: 2 } })).body).toEqual({ a: 1 });
    expect((await http.request("GET", "/text")).body).toBe("hello");
    expect((await http.request("PUT", "/empty", { text: { contentType: "application/yaml", body: "a: 1\n" } })).body).toBeUndefined();
    expect(seen).toEqual([
      { auth: "Bearer mpt_x", type: "application/json", body: '{"b":2}' },
      { auth: "Bearer mpt_x", type: undefined, body: "" },
      { auth: "Bearer mpt_x", type: "application/yaml", body: "a: 1\n" },
    ]);
    const anonymous = createHttpClient({ baseUrl: url, token: () => null });
    await anonymous.request("GET", "/empty");
    expect(seen.at(-1)?.auth).toBeUndefined();
  });

  it("turns a problem into one ApiError: status, title, detail, the bad fields, request id and Retry-After", async () => {
    answer = (_req, _body, res) =>
      problem(
        res,
        429,
        { title: "Too Many Requests", detail: "slow down", errors: [{ path: "spec.x", message: "is bad" }] },
        { "retry-after": "7", "x-request-id": "r-1" },
      );
    const error = await createHttpClient({ baseUrl: url, token: () => "t" })
      .request("GET", "/")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect({ ...(error as ApiError), message: (error as ApiError).message }).toEqual({
      status: 429,
      message: "slow down",
      title: "Too Many Requests",
      detail: "slow down",
      errors: [{ path: "spec.x", message: "is bad" }],
      requestId: "r-1",
      retryAfterSeconds: 7,
    });
  });

  it("says what an answer that is no problem says: its title, the start of its text, or its status", async () => {
    const http = createHttpClient({ baseUrl: url, token: () => "t" });
    const messageOf = (respond: typeof answer) => {
      answer = respond;
      return http.request("GET", "/").catch((e: ApiError) => e.message);
    };
    expect(await messageOf((_q, _b, res) => problem(res, 404, { title: "Not Found" }))).toBe("Not Found");
    expect(await messageOf((_q, _b, res) => res.writeHead(502, { "content-type": "text/html" }).end("x".repeat(300)))).toBe("x".repeat(200));
    expect(await messageOf((_q, _b, res) => res.writeHead(500, { "content-type": "application/json" }).end("{not json"))).toBe("{not json");
    expect(await messageOf((_q, _b, res) => res.writeHead(503).end())).toBe("HTTP 503");
    const own = createHttpClient({ baseUrl: url, token: () => "t", message: ({ status, statusText }) => `${status} ${statusText}` });
    answer = (_q, _b, res) => res.writeHead(503).end();
    expect(await own.request("GET", "/").catch((e: ApiError) => e.message)).toBe("503 Service Unavailable");
  });

  it("tells onUnauthorized of a 401 and throws what fetch throws when there is no answer", async () => {
    let told = 0;
    answer = (_q, _b, res) => problem(res, 401, { title: "Unauthorized" });
    const http = createHttpClient({ baseUrl: url, token: () => "t", onUnauthorized: () => told++ });
    await expect(http.request("GET", "/")).rejects.toMatchObject({ status: 401 });
    expect(told).toBe(1);
    const gone = createHttpClient({ baseUrl: "http://127.0.0.1:1", token: () => "t" });
    await expect(gone.request("GET", "/")).rejects.toBeInstanceOf(TypeError);
  });

  it("reads Retry-After as seconds, never a date", () => {
    const of = retryAfterOf;
    expect([of("0"), of("120"), of(undefined), of(""), of("-1"), of("soon"), of("Wed, 21 Oct 2015 07:28:00 GMT")]).toEqual([
      0,
      120,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
