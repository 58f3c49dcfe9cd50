import type { MiddlewareHandler } from "hono";
import { hashSecret } from "../../shared/secrets";
import { tenantPk } from "../../store/keys";
import type { AppEnv } from "../context";
import type { Route } from "../route";
import { rateClassOf, tooMany } from "./rate-limit";
import { type RateClass, type RateLimiter, agentBucket } from "./rate-limiter";
import { bearer, sourceOf } from "./request-source";

/** Tenant and cluster an agent JWT claims, read without verifying it (only to find its budget). */
function claimedAgent(token: string): { tenant: string; cluster: string } | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as { tenant?: unknown; sub?: unknown };
    return typeof claims.tenant === "string" && typeof claims.sub === "string" ? { tenant: claims.tenant, cluster: claims.sub } : undefined;
  } catch {
    return undefined;
  }
}

/** The partition that holds refusal buckets: beside the credential lookups (`TOKEN#<sha256>`), never a tenant's. */
const REFUSALS = "TOKEN#refused";

/**
 * Before authentication, cheapest first, with no I/O:
 * - a request whose budget this instance already knows to be used up is refused. The budget is found
 *   from what the request claims — a credential this instance saw verified, or an agent JWT's claims —
 *   and only ever spent after verification (`rateLimit`), so a forged claim can earn a 429 instead of
 *   a 401 but can never use up someone else's budget;
 * - a request with a credential whose refusals (401 and 403 answers) are used up is refused, and so
 *   is one from a source whose refusals are used up — unless its credential is one this instance has
 *   verified, so a valid token is never shut out by someone else's failures behind the same address.
 * After the request: a 401 or 403 spends one request of the `refused` budget of its source and of its
 * credential (by hash). Refusals never spend a tenant's budget. It also picks the request's turn lane.
 */
export function refuseExhausted(limiter: RateLimiter, route: Pick<Route, "access" | "method" | "path">): MiddlewareHandler<AppEnv> {
  const cls = rateClassOf(route);
  return async (c, next) => {
    const token = bearer(c);
    const source = sourceOf(c);
    const credential = token === undefined ? undefined : hashSecret(token);
    const verifiedAs = credential === undefined ? undefined : limiter.tenantOf(credential);
    const claimed = token === undefined || route.access !== "agent" || cls === undefined ? undefined : claimedAgent(token);
    const claimedPartition = claimed === undefined ? undefined : tenantPk(claimed.tenant);
    let key: { partition: string; bucket: string } | undefined;
    if (claimed !== undefined) key = { partition: tenantPk(claimed.tenant), bucket: agentBucket(cls as RateClass, claimed.cluster) };
    else if (cls === "operator") key = { partition: "OPERATOR", bucket: cls };
    else if (cls !== undefined && verifiedAs !== undefined) key = { partition: verifiedAs, bucket: cls };
    const overBudget = cls === undefined || key === undefined ? undefined : limiter.exhausted(key.partition, key.bucket);
    if (cls !== undefined && overBudget !== undefined) return tooMany(c, limiter, cls, overBudget);
    const refusals =
      (verifiedAs === undefined ? limiter.exhausted(REFUSALS, `source#${source}`) : undefined) ??
      (credential === undefined ? undefined : limiter.exhausted(REFUSALS, `credential#${credential}`));
    if (refusals !== undefined) return tooMany(c, limiter, "refused", refusals);
    // Turns go by what the request was verified as before: a verified credential, or an agent whose
    // requests were verified here; anything else waits in its source's one lane, so random bearers
    // cannot each open a lane of their own.
    c.set(
      "turnLane",
      verifiedAs !== undefined && credential !== undefined
        ? credential
        : claimed !== undefined && limiter.knowsAgent(claimedPartition as string, claimed.cluster)
          ? `agent|${claimedPartition}|${claimed.cluster}`
          : `source|${source}`,
    );
    await next();
    if (c.res.status !== 401 && c.res.status !== 403) return;
    if (c.res.status === 401 && credential !== undefined) limiter.forget(credential);
    try {
      await Promise.all([
        limiter.take(REFUSALS, `source#${source}`, "refused"),
        credential === undefined ? undefined : limiter.take(REFUSALS, `credential#${credential}`, "refused"),
      ]);
    } catch (error) {
      // The refusal is answered all the same; only its count is lost.
      c.get("log").error("could not count a refused request", { error: (error as Error).name });
    }
  };
}
