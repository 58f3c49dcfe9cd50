import type { RateLimitStore } from "../../store/rate-limits";

/**
 * What a request spends. Each class is its own budget, so one kind of traffic cannot starve another:
 * a tenant's CI applying policies does not use up its own agents' budget, and a flood of plans (each a
 * whole-tenant translation) does not use up reads. `refused` is what 401 and 403 answers spend, per
 * source and per presented credential: never a tenant's budget (docs/api.md, "Rate limits").
 */
export type RateClass = "read" | "write" | "plan" | "agent" | "metrics" | "authoring" | "operator" | "refused";

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
  /** An agent's metrics reports, per cluster: one every 5 minutes by default, every 60 s at most, and catch-up. */
  metrics: { limit: 6, windowMs: 60_000, burst: 6, lease: 1 },
  /**
   * An agent's requests about the custom resources it watches, per cluster (docs/gitops.md#the-agent):
   * a cluster's first sync of 5,000 in batches of 50 is 100 submits, about a minute and a half; after
   * that a few a minute — coalesced edits, deletions, the status read-back.
   */
  authoring: { limit: 60, windowMs: 60_000, burst: 30, lease: 2 },
  operator: { limit: 3000, windowMs: 60_000, burst: 300, lease: 10 },
  refused: { limit: 60, windowMs: 60_000, burst: 60, lease: 1 },
};

/**
 * Agent routes that spend a budget of their own instead of `agent`: the metrics reports, and the
 * custom resources a cluster authors, so a flood of them never holds up discovery, status or polls.
 */
export const AGENT_ROUTE_CLASSES: Readonly<Record<string, RateClass>> = {
  "/v1/agent/metrics": "metrics",
  "/v1/agent/resources": "authoring",
  "/v1/agent/resources/delete": "authoring",
  "/v1/agent/resources/sync": "authoring",
};

/** The budget an agent's request spends, per cluster: `agent`, or its route's own. */
export const agentClassOf = (path: string): RateClass => AGENT_ROUTE_CLASSES[path] ?? "agent";

/** The bucket of a cluster's budget of `cls` (`agent#<cluster>`, `metrics#<cluster>`). */
export const agentBucket = (cls: RateClass, cluster: string): string => `${cls}#${cluster}`;

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
