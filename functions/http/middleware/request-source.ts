import type { Context } from "hono";
import type { AppEnv } from "../context";

/** The bearer credential of a request, if any. */
export function bearer(c: Context<AppEnv>): string | undefined {
  return /^bearer (\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
}

/**
 * Where a request comes from, as the one who sent it cannot choose: the connection's address locally,
 * API Gateway's `sourceIp` on AWS (never a forwarded-for header). An IPv6 address counts by its /64,
 * the block one subscriber gets; an IPv4-mapped one as IPv4.
 */
export function sourceOf(c: Context<AppEnv>): string {
  const env = c.env as { requestContext?: { http?: { sourceIp?: string } }; incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const address = (env?.requestContext?.http?.sourceIp ?? env?.incoming?.socket?.remoteAddress ?? "unknown")
    .toLowerCase()
    .replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  if (!address.includes(":")) return address;
  // Expand "::" to find the first four groups of the address: its /64.
  const [head = "", tail = ""] = address.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::") ? [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back] : front;
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
