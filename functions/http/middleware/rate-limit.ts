import type { Context, MiddlewareHandler } from "hono";
import { hashSecret } from "../../shared/secrets";
import type { RateLimitStore } from "../../store/rate-limits";
import { tenantPk } from "../../store/keys";
import type { AppEnv } from "../context";
import { problem } from "../problem";
import type { Route } from "../route";

/**
 * What a request spends. Each class is its own budget, so one kind of traffic cannot starve another:
 * a tenant's CI applying policies does not use up its own agents' budget, and a flood of plans (each a
 * whole-tenant translation) does not use up reads. `refused` is what 401 and 403 answers spend, per
 * source and per presented credential: never a tenant's budget (docs/api.md, "Rate limits").
 */
export type RateClass = "read" | "write" | "plan" | "agent" | "operator" | "refused";

/** A token bucket: `limit` requests per `windowMs` sustained, `burst` of them at once. */
export interface RateLimit {
  /** Requests per window, sustained: the bucket refills at limit / windowMs. */
  limit: number;
  windowMs: number;
  /** Requests that may come at once: the bucket's size (at most `limit`; all of it when absent). */
  burst?: number;
  /** Most requests an instance takes from the shared bucket at once (one DynamoDB write per lease). */
  lease: number;
}

/**
 * Budgets per tenant (per cluster for agents; per source and per credential for refusals), as token
 * buckets: per minute, with a burst. Generous for people and pipelines — 3,000 reads and 600 writes a
 * minute (50 and 10 a second), 300 reads and 60 writes at once, so a pipeline's 50 concurrent creates
 * are all served — and for agents (120 a minute, 30 at once), which poll every 15 s and report now and
 * then; far below what one tenant would need to slow the service for others. A flood gets the burst
 * once and then the sustained rate: unlike a fixed window, a bucket never lets a whole minute's budget
 * through at once, and never twice a budget across a window's edge.
 */
export const DEFAULT_LIMITS: Record<RateClass, RateLimit> = {
  read: { limit: 3000, windowMs: 60_000, burst: 300, lease: 10 },
  write: { limit: 600, windowMs: 60_000, burst: 60, lease: 5 },
  plan: { limit: 60, windowMs: 60_000, burst: 5, lease: 1 },
  agent: { limit: 120, windowMs: 60_000, burst: 30, lease: 1 },
  operator: { limit: 3000, windowMs: 60_000, burst: 300, lease: 10 },
  refused: { limit: 60, windowMs: 60_000, burst: 60, lease: 1 },
};

/**
 * Snapshot polls a cluster's agent makes for free, per API instance: one every 10 s, three at once —
 * more than an agent polling every 15 s (or every 300 s beside the push channel) ever makes. They
 * cost no DynamoDB write; polls beyond them spend the cluster's `agent` budget like any agent request.
 */
export const FREE_POLLS = { limit: 6, windowMs: 60_000, burst: 3 } as const;

/**
 * Leased requests an instance has not used within this are dropped, so what an instance holds can add
 * at most a second of the sustained rate to a bucket's bound.
 */
export const LEASE_TTL_MS = 1000;

/**
 * A bucket known empty for longer than its window, or a lease held past its time to live, was
 * learnt by a clock that has since stepped back: forget it, as the store does (rate-limits.ts).
 */
function forgetSteppedClock(entry: Local, now: number): void {
  if (entry.emptyUntil - now > entry.windowMs) entry.emptyUntil = 0;
  if (entry.until - now > LEASE_TTL_MS) {
    entry.until = 0;
    entry.remaining = 0;
  }
}

interface Local {
  remaining: number;
  /** The leased requests are dropped at this time. */
  until: number;
  /** The size of the next lease: doubles while leases are used up, halves when one is dropped unused. */
  size: number;
  /** The shared bucket is empty until this time: refuse without asking the store again. */
  emptyUntil: number;
  /** The bucket's window: no bucket is empty for longer, so an `emptyUntil` further off is a clock that stepped back. */
  windowMs: number;
  /** The lease being taken: concurrent requests wait for it instead of each leasing (and stranding) their own. */
  pending?: Promise<void> | undefined;
}

/** Seconds, rounded up, at least one: a Retry-After. */
const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * Token-bucket rate limits shared by every API instance (every Lambda, or the one local process): the
 * bucket lives in DynamoDB (RateLimitStore), and each instance leases a few requests at a time into
 * memory. Once a bucket is empty, the instance refuses further requests of it from memory until the
 * store said one would be allowed again — a flood costs the store nothing and answers in
 * microseconds. The same code runs locally and on AWS.
 */
export class RateLimiter {
  private readonly local = new Map<string, Local>();
  /** Credential hash → the partition it authenticated as, learned from verified requests. */
  private readonly verified = new Map<string, string>();
  /** Agents (tenant partition|cluster) this instance has verified a request of. */
  private readonly agents = new Set<string>();
  /** Free polls per cluster: the time (ms) at which its allowance in this instance is whole again. */
  private readonly polls = new Map<string, number>();

  constructor(
    private readonly store: RateLimitStore,
    private readonly limits: Record<RateClass, RateLimit>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one request of `bucket`; undefined when allowed, else the seconds until one would be. */
  async take(partition: string, bucket: string, cls: RateClass): Promise<number | undefined> {
    const shape = this.limits[cls];
    const key = `${partition}|${bucket}`;
    let local = this.local.get(key);
    if (local === undefined) {
      this.sweep();
      local = { remaining: 0, until: 0, size: 1, emptyUntil: 0, windowMs: shape.windowMs };
      this.local.set(key, local);
    }
    const entry = local;
    for (;;) {
      const now = this.now();
      forgetSteppedClock(entry, now);
      if (entry.remaining > 0 && now < entry.until) {
        entry.remaining--;
        return undefined;
      }
      if (now < entry.emptyUntil) return seconds(entry.emptyUntil - now);
      if (entry.pending === undefined) {
        // What was leased and not used in time makes the next lease smaller; a lease used up, larger.
        entry.size = entry.remaining > 0 ? Math.max(1, Math.ceil(entry.size / 2)) : Math.min(entry.size * 2, shape.lease);
        entry.remaining = 0;
        const want = Math.max(1, Math.min(entry.size, shape.lease));
        entry.pending = this.store
          .lease(partition, bucket, shape, want, now)
          .then(({ granted, retryAfterMs }) => {
            if (granted > 0) {
              entry.remaining = granted;
              entry.until = now + LEASE_TTL_MS;
            }
            // Once what was granted is used, the bucket is known empty until then: no need to ask.
            entry.emptyUntil = now + retryAfterMs;
          })
          .finally(() => {
            entry.pending = undefined;
          });
      }
      await entry.pending;
    }
  }

  /**
   * Seconds to wait when this instance already knows the bucket is empty, else undefined. No I/O: it
   * lets a flood be refused before its credential is even looked up.
   */
  exhausted(partition: string, bucket: string): number | undefined {
    const entry = this.local.get(`${partition}|${bucket}`);
    const now = this.now();
    if (entry !== undefined) forgetSteppedClock(entry, now);
    if (entry === undefined || now >= entry.emptyUntil || (entry.remaining > 0 && now < entry.until)) return undefined;
    return seconds(entry.emptyUntil - now);
  }

  /**
   * One of the cluster's free polls in this instance (FREE_POLLS), if it has one left: no I/O. A
   * bucket in memory, so it bounds one instance, and each instance's the same way.
   */
  freePoll(partition: string, cluster: string): boolean {
    const key = `${partition}|${cluster}`;
    const interval = FREE_POLLS.windowMs / FREE_POLLS.limit;
    const now = this.now();
    const full = Math.max(this.polls.get(key) ?? 0, now);
    if (full + interval - now > FREE_POLLS.burst * interval) return false;
    if (!this.polls.has(key) && this.polls.size >= 100_000) this.polls.clear();
    this.polls.set(key, full + interval);
    return true;
  }

  /** Remembers which partition a verified credential belongs to (by its hash, never the secret). */
  learn(credentialHash: string, partition: string): void {
    if (this.verified.size >= 100_000) this.verified.clear();
    this.verified.set(credentialHash, partition);
  }

  /** Forgets a credential that was refused (revoked, expired). */
  forget(credentialHash: string): void {
    this.verified.delete(credentialHash);
  }

  tenantOf(credentialHash: string): string | undefined {
    return this.verified.get(credentialHash);
  }

  /** Remembers that a cluster's agent was verified here (its claims then pick its turn lane). */
  learnAgent(partition: string, cluster: string): void {
    if (this.agents.size >= 100_000) this.agents.clear();
    this.agents.add(`${partition}|${cluster}`);
  }

  knowsAgent(partition: string, cluster: string): boolean {
    return this.agents.has(`${partition}|${cluster}`);
  }

  /** The budget of `cls` in words, for the 429's detail. */
  describe(cls: RateClass): string {
    const { limit, windowMs, burst = limit } = this.limits[cls];
    return `${limit} requests per ${windowMs / 1000} s, ${Math.min(burst, limit)} at once`;
  }

  /** Forgets buckets with nothing leased and nothing known, so memory follows active buckets only. */
  private sweep(): void {
    if (this.local.size < 10_000) return;
    const now = this.now();
    for (const [key, entry] of this.local) if (entry.pending === undefined && now >= entry.until && now >= entry.emptyUntil) this.local.delete(key);
  }
}

/** The budget a route spends from, or undefined for public routes (bounded by the stage throttle). */
export function rateClassOf(route: Pick<Route, "access" | "method" | "path">): RateClass | undefined {
  if (route.access === "public") return undefined;
  if (route.access === "agent") return "agent";
  if (route.access === "operator") return "operator";
  if (route.path === "/v1/plan") return "plan";
  return route.method === "get" ? "read" : "write";
}

function tooMany(c: Context<AppEnv>, limiter: RateLimiter, cls: RateClass, retryAfter: number): Response {
  c.header("retry-after", String(retryAfter));
  if (cls === "refused") return problem(c, 429, `too many refused requests (401, 403) from this source or with this credential (${limiter.describe(cls)}); retry after ${retryAfter} s`);
  return problem(c, 429, `over the ${cls} rate limit (${limiter.describe(cls)}); retry after ${retryAfter} s`);
}

/** The bearer credential of a request, if any. */
function bearer(c: Context<AppEnv>): string | undefined {
  return /^bearer (\S+)$/i.exec(c.req.header("authorization") ?? "")?.[1];
}

/** Tenant and cluster an agent JWT claims, read without verifying it (only to find its budget). */
function claimedAgent(token: string): { tenant: string; cluster: string } | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString()) as { tenant?: unknown; sub?: unknown };
    return typeof claims.tenant === "string" && typeof claims.sub === "string" ? { tenant: claims.tenant, cluster: claims.sub } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Where a request comes from, as the one who sent it cannot choose: the connection's address locally,
 * API Gateway's `sourceIp` on AWS (never a forwarded-for header). An IPv6 address counts by its /64,
 * the block one subscriber gets; an IPv4-mapped one as IPv4.
 */
export function sourceOf(c: Context<AppEnv>): string {
  const env = c.env as { requestContext?: { http?: { sourceIp?: string } }; incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const address = (env?.requestContext?.http?.sourceIp ?? env?.incoming?.socket?.remoteAddress ?? "unknown").toLowerCase().replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/, "");
  if (!address.includes(":")) return address;
  // Expand "::" to find the first four groups of the address: its /64.
  const [head = "", tail = ""] = address.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::") ? [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back] : front;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

/** The partition that holds refusal buckets: beside the credential lookups (`TOKEN#<sha256>`), never a tenant's. */
const REFUSALS = "TOKEN#refused";

/** The turn lane each request was given before authentication (read by fairTurns). */
const laneOfRequest = new WeakMap<Request, string>();

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
    const claimed = token === undefined || cls !== "agent" ? undefined : claimedAgent(token);
    const claimedPartition = claimed === undefined ? undefined : tenantPk(claimed.tenant);
    let key: { partition: string; bucket: string } | undefined;
    if (claimed !== undefined) key = { partition: tenantPk(claimed.tenant), bucket: `agent#${claimed.cluster}` };
    else if (cls === "operator") key = { partition: "OPERATOR", bucket: cls };
    else if (cls !== undefined && verifiedAs !== undefined) key = { partition: verifiedAs, bucket: cls };
    const overBudget = cls === undefined || key === undefined ? undefined : limiter.exhausted(key.partition, key.bucket);
    if (cls !== undefined && overBudget !== undefined) return tooMany(c, limiter, cls, overBudget);
    const refusals = (verifiedAs === undefined ? limiter.exhausted(REFUSALS, `source#${source}`) : undefined) ?? (credential === undefined ? undefined : limiter.exhausted(REFUSALS, `credential#${credential}`));
    if (refusals !== undefined) return tooMany(c, limiter, "refused", refusals);
    // Turns go by what the request was verified as before: a verified credential, or an agent whose
    // requests were verified here; anything else waits in its source's one lane, so random bearers
    // cannot each open a lane of their own.
    laneOfRequest.set(
      c.req.raw,
      verifiedAs !== undefined && credential !== undefined ? credential : claimed !== undefined && limiter.knowsAgent(claimedPartition as string, claimed.cluster) ? `agent|${claimedPartition}|${claimed.cluster}` : `source|${source}`,
    );
    await next();
    if (c.res.status !== 401 && c.res.status !== 403) return;
    if (c.res.status === 401 && credential !== undefined) limiter.forget(credential);
    try {
      await Promise.all([limiter.take(REFUSALS, `source#${source}`, "refused"), credential === undefined ? undefined : limiter.take(REFUSALS, `credential#${credential}`, "refused")]);
    } catch (error) {
      // The refusal is answered all the same; only its count is lost.
      c.get("log").error("could not count a refused request", { error: (error as Error).name });
    }
  };
}

/**
 * Spends the request from its budget once the caller is known (after `authorize`): a tenant's classes
 * per tenant, an agent's per cluster, the operator's as one. An agent's snapshot poll first uses its
 * free polls in this instance (FREE_POLLS: no store I/O, so an unchanged poll costs one read and no
 * write). Over budget: 429 with `Retry-After`.
 */
export function rateLimit(limiter: RateLimiter, route: Pick<Route, "access" | "method" | "path">): MiddlewareHandler<AppEnv> {
  const cls = rateClassOf(route);
  return async (c, next) => {
    if (cls === undefined) return next();
    const agent = cls === "agent" ? c.get("agent") : undefined;
    const partition = cls === "operator" ? "OPERATOR" : tenantPk(c.get("tenantId"));
    const token = bearer(c);
    if (agent !== undefined) {
      limiter.learnAgent(partition, agent.cluster);
      if (route.method === "get" && limiter.freePoll(partition, agent.cluster)) return next();
    } else if (token !== undefined) limiter.learn(hashSecret(token), partition);
    const bucket = agent === undefined ? cls : `agent#${agent.cluster}`;
    const retryAfter = await limiter.take(partition, bucket, cls);
    return retryAfter === undefined ? next() : tooMany(c, limiter, cls, retryAfter);
  };
}

/** Requests one credential may have in progress at once in an instance; more wait their turn. */
export const MAX_IN_FLIGHT_PER_CREDENTIAL = 8;

/**
 * How one process serving every tenant shares itself out (the local control plane). On Lambda each
 * instance serves one request at a time and more instances start under load, so neither applies.
 */
export interface Sharing {
  /** Requests doing work at once in this process; the rest wait, taken from each credential in turn. */
  maxConcurrent: number;
  /** Of those, at most this many from one credential. */
  perCredential: number;
  /** How long a refusal (429) is held before it is sent, at most until its Retry-After. */
  holdRefusalsMs: number;
}

/**
 * The local control plane: one Node process and one DynamoDB Local on a laptop's cores. Four requests
 * at work keep the store busy while some wait on it; one per credential means a client's own
 * requests queue behind each other, never in front of someone else's. Held refusals turn a client
 * looping on 429 from hundreds of refusals a second into one per connection per second. Chosen by
 * test/bench/fairness.ts (tenant B's p99 while tenant A floods, over its quiet p99): 5.3× with eight
 * in flight per credential and no turns, 2.7× with two slots shared in turn, about 2× with one per
 * credential, 1.7× once DynamoDB Local also ran with the serial collector.
 */
export const SINGLE_PROCESS_SHARING: Sharing = { maxConcurrent: 4, perCredential: 1, holdRefusalsMs: 1000 };

/**
 * At most `max` requests per credential in progress at once (per instance); the rest wait, in order,
 * without using CPU. Budgets bound how many requests a tenant gets through per window; this bounds
 * how much of an instance one client holds at any moment, so a client with many connections in a
 * tight loop cannot crowd others out of the event loop and the store — its own requests queue behind
 * each other instead. A refusal (429) is held up to `holdRefusalsMs` (never past its Retry-After)
 * while keeping its slot, so a client that ignores Retry-After slows only itself. Keyed by the
 * credential's hash before it is verified: a forged credential can only queue behind itself. Public
 * routes and requests without a credential are not held.
 */
export function inFlightLimit(max = MAX_IN_FLIGHT_PER_CREDENTIAL, holdRefusalsMs = 0): MiddlewareHandler<AppEnv> {
  const lanes = new Map<string, { active: number; waiting: (() => void)[] }>();
  return async (c, next) => {
    const token = bearer(c);
    if (token === undefined) return next();
    const key = hashSecret(token);
    let lane = lanes.get(key);
    if (lane === undefined) {
      lane = { active: 0, waiting: [] };
      lanes.set(key, lane);
    }
    if (lane.active >= max) await new Promise<void>((resolve) => (lane as { waiting: (() => void)[] }).waiting.push(resolve));
    else lane.active++;
    try {
      await next();
      if (holdRefusalsMs > 0 && c.res.status === 429) {
        const retryAfterMs = Number(c.res.headers.get("retry-after") ?? 0) * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.min(holdRefusalsMs, retryAfterMs)));
      }
    } finally {
      const wake = lane.waiting.shift();
      // The slot passes straight to the next waiter; only when none waits is it given back.
      if (wake !== undefined) wake();
      else if (--lane.active === 0) lanes.delete(key);
    }
  };
}

/**
 * At most `maxConcurrent` requests at work in this process, and at most `perCredential` of them from
 * one credential; the others wait in one queue per credential, and a freed slot goes to each
 * credential in turn. One client therefore never holds every slot: a newcomer starts at once beside
 * a flood's request instead of queueing behind its backlog — this is what keeps one tenant's load
 * from multiplying another's latency on a single process (the budgets alone bound how much a tenant
 * gets, not when). Runs after refusals from memory, so a refused flood never takes a turn. The lane
 * is the one `refuseExhausted` gave the request: a credential verified before, an agent verified
 * before, or else the source's one lane, so random bearers share a lane instead of each opening one.
 * Requests without a credential are not queued.
 */
export function fairTurns(maxConcurrent: number, perCredential: number): MiddlewareHandler<AppEnv> {
  /** Waiting requests by lane, in turn order (a Map iterates in insertion order). */
  const waiting = new Map<string, (() => void)[]>();
  const active = new Map<string, number>();
  let total = 0;
  const canStart = (key: string) => total < maxConcurrent && (active.get(key) ?? 0) < perCredential;
  const start = (key: string) => {
    total++;
    active.set(key, (active.get(key) ?? 0) + 1);
  };
  const finish = (key: string) => {
    total--;
    const left = (active.get(key) as number) - 1;
    if (left === 0) active.delete(key);
    else active.set(key, left);
    for (const [next, queue] of waiting) {
      if (total >= maxConcurrent) break;
      if (!canStart(next)) continue;
      const wake = queue.shift() as () => void;
      // Served: to the back of the turn order, or gone when it has no one else waiting.
      waiting.delete(next);
      if (queue.length > 0) waiting.set(next, queue);
      start(next);
      wake();
    }
  };
  return async (c, next) => {
    const token = bearer(c);
    if (token === undefined) return next();
    const key = laneOfRequest.get(c.req.raw) ?? hashSecret(token);
    if (canStart(key) && !waiting.has(key)) start(key);
    else
      await new Promise<void>((resolve) => {
        const queue = waiting.get(key);
        if (queue === undefined) waiting.set(key, [resolve]);
        else queue.push(resolve);
      });
    try {
      await next();
    } finally {
      finish(key);
    }
  };
}
