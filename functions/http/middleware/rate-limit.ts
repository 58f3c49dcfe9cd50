/**
 * Rate limits (docs/api.md, "Rate limits"): what a request spends once its caller is known. The
 * buckets are rate-limiter.ts's; refusals.ts refuses from memory before authentication; how many
 * requests run at once is concurrency.ts's.
 */
import type { Context, MiddlewareHandler } from "hono";
import { hashSecret } from "../../shared/secrets";
import { tenantPk } from "../../store/keys";
import type { AppEnv } from "../context";
import { problem } from "../problem";
import type { Route } from "../route";
import { type RateClass, type RateLimiter, agentBucket, agentClassOf } from "./rate-limiter";
import { bearer } from "./request-source";

/** The budget a route spends from, or undefined for public routes (bounded by the stage throttle). */
export function rateClassOf(route: Pick<Route, "access" | "method" | "path">): RateClass | undefined {
  if (route.access === "public") return undefined;
  if (route.access === "agent") return agentClassOf(route.path);
  if (route.access === "operator") return "operator";
  if (route.path === "/v1/plan") return "plan";
  return route.method === "get" ? "read" : "write";
}

/** A 429 for the budget of `cls`, with its Retry-After. */
export function tooMany(c: Context<AppEnv>, limiter: RateLimiter, cls: RateClass, retryAfter: number): Response {
  c.header("retry-after", String(retryAfter));
  if (cls === "refused")
    return problem(
      c,
      429,
      `too many refused requests (401, 403) from this source or with this credential (${limiter.describe(cls)}); retry after ${retryAfter} s`,
    );
  return problem(c, 429, `over the ${cls} rate limit (${limiter.describe(cls)}); retry after ${retryAfter} s`);
}

/**
 * Spends the request from its budget once the caller is known (after `authorize`): a tenant's classes
 * per tenant, an agent's per cluster, the operator's as one. An agent's snapshot poll (a GET of the
 * `agent` class; the routes with a budget of their own never) first uses its free polls in this instance (FREE_POLLS: no store I/O, so an unchanged poll costs one read and no
 * write). Over budget: 429 with `Retry-After`.
 */
export function rateLimit(limiter: RateLimiter, route: Pick<Route, "access" | "method" | "path">): MiddlewareHandler<AppEnv> {
  const cls = rateClassOf(route);
  return async (c, next) => {
    if (cls === undefined) return next();
    const agent = route.access === "agent" ? c.get("agent") : undefined;
    const partition = cls === "operator" ? "OPERATOR" : tenantPk(c.get("tenantId"));
    const token = bearer(c);
    if (agent !== undefined) {
      limiter.learnAgent(partition, agent.cluster);
      if (cls === "agent" && route.method === "get" && limiter.freePoll(partition, agent.cluster)) return next();
    } else if (token !== undefined) limiter.learn(hashSecret(token), partition);
    const bucket = agent === undefined ? cls : agentBucket(cls, agent.cluster);
    const retryAfter = await limiter.take(partition, bucket, cls);
    return retryAfter === undefined ? next() : tooMany(c, limiter, cls, retryAfter);
  };
}
