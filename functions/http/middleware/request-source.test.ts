import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import type { AppEnv } from "../context";
import { sourceOf } from "./request-source";

/** What sourceOf makes of a request with this adapter environment. */
const sourceFor = async (env: unknown) => {
  const app = new Hono<AppEnv>();
  app.get("/", (c) => c.text(sourceOf(c)));
  return (await app.request("/", {}, env as never)).text();
};

describe("the source of a request", () => {
  it("is API Gateway's sourceIp, or the socket's address; an IPv6 address by its /64, an IPv4-mapped one as IPv4", async () => {
    expect(await sourceFor({ requestContext: { http: { sourceIp: "203.0.113.9" } } })).toBe("203.0.113.9");
    expect(await sourceFor({ incoming: { socket: { remoteAddress: "::ffff:127.0.0.1" } } })).toBe("127.0.0.1");
    expect(await sourceFor({ requestContext: { http: { sourceIp: "2001:DB8:0:12::1" } } })).toBe("2001:db8:0:12::/64");
    expect(await sourceFor({ requestContext: { http: { sourceIp: "2001:db8:0:12:aaaa:bbbb:cccc:dddd" } } })).toBe("2001:db8:0:12::/64");
    expect(await sourceFor({ requestContext: { http: { sourceIp: "::1" } } })).toBe("0:0:0:0::/64");
    expect(await sourceFor(undefined)).toBe("unknown");
  });
});
