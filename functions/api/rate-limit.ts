import type { Context, MiddlewareHandler } from "hono";
import { hashSecret } from "../shared/secrets";
import type { RateLimitStore } from "../store/rate-limits";
import { tenantPk } from "../store/keys";
import type { AppEnv } from "./context";
import { problem } from "./problem";
import type { Route } from "./route";

/**
 * What a request spends. Each class is its own budget, so one kind of traffic cannot starve another:
 * a tenant's CI applying policies does not use up its own agents' budget, and a flood of plans (each a
 * whole-tenant translation) does not use up reads.
 */
export type RateClass = "read" | "write" | "plan" | "agent" | "operator";

export interface RateLimit {
  /** Requests allowed per window. */
  limit: number;
  windowMs: number;
  /** Requests an instance takes from the shared budget at once (one DynamoDB write per lease). */
  lease: number;
}

/**
 * Budgets per tenant (per cluster for agents), per window. Generous for people and pipelines — 50
 * reads and 10 writes a second, a plan a second — and for agents (two requests a second), which poll
 * every 15 s and report now and then; far below what one tenant would need to slow the service for
 * others. Windows are one second (plans two), not ten: a fixed window lets its whole budget through
 * at once, so a flooding client with a ten-second window takes 500 reads in its first second and
 * saturates the store for everyone; a short window spreads the same rate evenly, the way a token
 * bucket would, at no extra cost in the store (the lease is still one write per 5–10 requests).
 */
export const DEFAULT_LIMITS: Record<RateClass, RateLimit> = {
  read: { limit: 50, windowMs: 1_000, lease: 10 },
  write: { limit: 10, windowMs: 1_000, lease: 5 },
  plan: { limit: 2, windowMs: 2_000, lease: 1 },
  // A minute, not a second: an agent polls every 15 s, so in a short window it would lease (one
  // DynamoDB write) for every single poll; in a minute one lease covers its four polls.
  agent: { limit: 120, windowMs: 60_000, lease: 4 },
  operator: { limit: 50, windowMs: 1_000, lease: 10 },
};

interface Local {
  window: number;
  remaining: number;
  /** The shared budget of this window is used up: refuse without asking the store again. */
  exhausted: boolean;
  /** The lease being taken: concurrent requests wait for it instead of each leasing (and stranding) their own. */
  pending?: Promise<void> | undefined;
}

/**
 * Fixed-window rate limits shared by every API instance (every Lambda, or the one local process):
 * the window's budget lives in DynamoDB (RateLimitStore), and each instance leases a few requests at
 * a time into memory. Once a window's budget is gone, the instance refuses further requests of that
 * bucket from memory until the window ends — a flood costs the store nothing and answers in
 * microseconds. The same code runs locally and on AWS.
 */
export class RateLimiter {
  private readonly local = new Map<string, Local>();
  /** Credential hash → the tenant partition it authenticated as, learned from verified requests. */
  private readonly tenants = new Map<string, string>();

  constructor(
    private readonly store: RateLimitStore,
    private readonly limits: Record<RateClass, RateLimit>,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one request of `bucket`; undefined when allowed, else the seconds until the window ends. */
  async take(partition: string, bucket: string, cls: RateClass): Promise<number | undefined> {
    const { limit, windowMs, lease } = this.limits[cls];
    const now = this.now();
    const window = now - (now % windowMs);
    const key = `${partition}|${bucket}`;
    let entry = this.local.get(key);
    if (entry === undefined || entry.window !== window) {
      entry = { window, remaining: 0, exhausted: false };
      this.local.set(key, entry);
      this.sweep(window, windowMs);
    }
    const local = entry;
    for (;;) {
      if (local.remaining > 0) {
        local.remaining--;
        return undefined;
      }
      if (local.exhausted) return Math.max(1, Math.ceil((window + windowMs - now) / 1000));
      local.pending ??= this.store
        .lease(partition, bucket, window, windowMs, limit, Math.min(lease, limit))
        .then((granted) => {
          local.remaining += granted;
          if (granted === 0) local.exhausted = true;
        })
        .finally(() => {
          local.pending = undefined;
        });
      await local.pending;
    }
  }

  /**
   * Seconds to wait when this instance already knows the bucket's window is used up, else undefined.
   * No I/O: it lets a flood be refused before its credential is even looked up.
   */
  exhausted(partition: string, bucket: string, cls: RateClass): number | undefined {
    const entry = this.local.get(`${partition}|${bucket}`);
    const now = this.now();
    const { windowMs } = this.limits[cls];
    if (entry === undefined || !entry.exhausted || entry.window !== now - (now % windowMs)) return undefined;
    return Math.max(1, Math.ceil((entry.window + windowMs - now) / 1000));
  }

  /** Remembers which tenant a verified credential belongs to (by its hash, never the secret). */
  learn(credentialHash: string, partition: string): void {
    if (this.tenants.size >= 100_000) this.tenants.clear();
    this.tenants.set(credentialHash, partition);
  }

  tenantOf(credentialHash: string): string | undefined {
    return this.tenants.get(credentialHash);
  }

  /** The budget of `cls` in words, for the 429's detail. */
  describe(cls: RateClass): string {
    const { limit, windowMs } = this.limits[cls];
    return `${limit} requests per ${windowMs / 1000} s`;
  }

  /** Forgets entries of past windows, so memory follows active buckets only. */
  private sweep(window: number, windowMs: number): void {
    if (this.local.size < 10_000) return;
    for (const [key, entry] of this.local) if (entry.window < window - windowMs) this.local.delete(key);
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
 * Before authentication: refuses at once a request whose budget this instance already knows to be
 * used up, so a flood costs neither a credential lookup nor a signature check. The budget is found
 * from what the request claims — a credential this instance saw verified, or an agent JWT's claims —
 * and only ever spent after verification (`rateLimit`), so a forged claim can earn a 429 instead of
 * a 401 but can never use up someone else's budget.
 */
export function refuseExhausted(limiter: RateLimiter, route: Pick<Route, "access" | "method" | "path">): MiddlewareHandler<AppEnv> {
  const cls = rateClassOf(route);
  return async (c, next) => {
    const token = cls === undefined ? undefined : bearer(c);
    if (cls === undefined || token === undefined) return next();
    let key: { partition: string; bucket: string } | undefined;
    if (cls === "agent") {
      const claimed = claimedAgent(token);
      if (claimed !== undefined) key = { partition: tenantPk(claimed.tenant), bucket: `agent#${claimed.cluster}` };
    } else if (cls === "operator") key = { partition: "OPERATOR", bucket: cls };
    else {
      const partition = limiter.tenantOf(hashSecret(token));
      if (partition !== undefined) key = { partition, bucket: cls };
    }
    const retryAfter = key === undefined ? undefined : limiter.exhausted(key.partition, key.bucket, cls);
    return retryAfter === undefined ? next() : tooMany(c, limiter, cls, retryAfter);
  };
}

/**
 * Spends the request from its budget once the caller is known (after `authorize`): a tenant's classes
 * per tenant, an agent's per cluster, the operator's as one. Over budget: 429 with `Retry-After`.
 */
export function rateLimit(limiter: RateLimiter, route: Pick<Route, "access" | "method" | "path">): MiddlewareHandler<AppEnv> {
  const cls = rateClassOf(route);
  return async (c, next) => {
    if (cls === undefined) return next();
    const agent = cls === "agent" ? c.get("agent") : undefined;
    const partition = cls === "operator" ? "OPERATOR" : tenantPk(c.get("tenantId"));
    const bucket = agent === undefined ? cls : `agent#${agent.cluster}`;
    const token = bearer(c);
    if (cls !== "agent" && cls !== "operator" && token !== undefined) limiter.learn(hashSecret(token), partition);
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
 * gets, not when). Runs after refusals from memory, so a refused flood never takes a turn. Requests
 * without a credential are not queued.
 */
export function fairTurns(maxConcurrent: number, perCredential: number): MiddlewareHandler<AppEnv> {
  /** Waiting requests by credential hash, in turn order (a Map iterates in insertion order). */
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
    const key = hashSecret(token);
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
