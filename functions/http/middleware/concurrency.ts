import type { MiddlewareHandler } from "hono";
import { hashSecret } from "../../shared/secrets";
import type { AppEnv } from "../context";
import { bearer } from "./request-source";

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
    const key = c.get("turnLane") ?? hashSecret(token);
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
