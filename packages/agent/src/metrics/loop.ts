import { METRICS_LIMITS, MINUTE_S, type MetricsSourceHealth } from "@meshplane/core";
import { ApiError } from "@meshplane/core/http-client";
import { backoffMs } from "../backoff";
import type { Logger } from "../observability/log";
import type { MinuteCounts, RelaySet } from "./minute";
import { packReports } from "./pack";

/**
 * The agent's metrics timer (docs/agent.md#metrics), apart from the sync loop: every `intervalMs`
 * it reads the minutes that ended (`settleMs` ago, so every scrape of them has landed) and not yet
 * read; every `sendEveryMs` it sends what it read. Each minute is read from Prometheus on its own
 * (./queries.ts), so a minute that could not be read is read again on the next tick, and minutes
 * not sent are sent with the next report: both up to METRICS_LIMITS.minutes, older ones dropped
 * with a log line. Nothing here throws: a failure is logged and in the next report's `health`,
 * and never reaches the sync loop.
 */

export interface MetricsLoopDeps {
  cluster: string;
  /** The cluster's own Istio cluster ID and its relays, as discovery sees them now. */
  context: () => { istioClusterId: string; relays: RelaySet };
  readMinute: (start: number, relays: RelaySet) => Promise<MinuteCounts>;
  /** POSTs one gzipped report; an ApiError says why not. */
  post: (gzipped: Uint8Array) => Promise<void>;
  /** Only the leader reads and sends. */
  active: () => boolean;
  log: Logger;
  intervalMs: number;
  sendEveryMs: number;
  maxEdges: number;
  /** How long after a minute's end it is read. */
  settleMs: number;
  now?: () => number;
  random?: () => number;
  /** Counts what the loop does, for the agent's own /metrics. */
  counters?: { minutesRead: number; readFailures: number; reportsSent: number; reportsDropped: number; reportBytes: number };
}

const MAX_MINUTES = METRICS_LIMITS.minutes;
const MINUTE_MS = MINUTE_S * 1000;
/** How soon a send is tried again while the cluster's Istio cluster ID is not known. */
const CONTEXT_RETRY_MS = 10_000;

/** Whether a refused send is worth another try: the control plane was busy, away, or asked for time. */
const retryable = (error: unknown) => !(error instanceof ApiError) || error.status === 0 || error.status === 429 || error.status >= 500;

export class MetricsLoop {
  /** The start of the next minute to read; undefined until the first read. */
  private next?: number;
  private pending: MinuteCounts[] = [];
  private health: MetricsSourceHealth = { state: "unavailable", message: "Prometheus not read yet" };
  private failures = 0;
  private sendAt: number;
  private readAt: number;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly deps: MetricsLoopDeps) {
    const now = this.now();
    // A fleet started together sends spread over the interval, not in step.
    this.sendAt = now + Math.round(deps.sendEveryMs * (deps.random ?? Math.random)());
    this.readAt = now;
  }

  /** Reads and sends on their timers until stop(). */
  start(): void {
    const tick = async () => {
      if (this.stopped) return;
      const now = this.now();
      if (this.deps.active()) {
        if (now >= this.readAt) await this.read();
        if (now >= this.sendAt) await this.send();
      } else {
        // A follower keeps nothing: the leader it may become reads back from the start.
        this.next = undefined;
        this.pending = [];
      }
      const at = Math.min(this.readAt, this.sendAt);
      if (!this.stopped) this.timer = setTimeout(() => void tick(), Math.max(1000, at - this.now()));
    };
    void tick();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** Minutes read and not yet sent (for tests). */
  unsent(): readonly MinuteCounts[] {
    return this.pending;
  }

  /** When the next read and the next send are due (epoch ms). */
  due(): { readAt: number; sendAt: number } {
    return { readAt: this.readAt, sendAt: this.sendAt };
  }

  currentHealth(): MetricsSourceHealth {
    return this.health;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  /**
   * Reads every minute that ended at least `settleMs` ago and was not read, oldest first, stopping at
   * the first that fails (it is read again next time). The first read after a start goes back as
   * far as one report's minutes: a new leader cannot know what the last one sent, and a minute sent
   * twice is kept once.
   */
  async read(): Promise<void> {
    const now = this.now();
    this.readAt = (Math.floor(now / this.deps.intervalMs) + 1) * this.deps.intervalMs + this.deps.settleMs;
    const last = Math.floor((now - this.deps.settleMs) / MINUTE_MS) * MINUTE_S - MINUTE_S;
    const back = Math.min(MAX_MINUTES, Math.max(1, Math.round(this.deps.sendEveryMs / MINUTE_MS)));
    const oldest = last - (MAX_MINUTES - 1) * MINUTE_S;
    let from = this.next ?? last - (back - 1) * MINUTE_S;
    if (from < oldest) {
      this.deps.log.error("metrics: minutes not read in time are dropped", { minutes: (oldest - from) / MINUTE_S, from: iso(from) });
      from = oldest;
    }
    let context: ReturnType<MetricsLoopDeps["context"]>;
    try {
      context = this.deps.context();
    } catch (error) {
      // Discovery has not listed the cluster yet: without its relays a minute cannot be read right.
      return this.setHealth({ state: "unavailable", message: `not read yet: ${(error as Error).message}` });
    }
    let read = 0;
    for (let start = from; start <= last; start += MINUTE_S) {
      try {
        this.keep(await this.deps.readMinute(start, context.relays));
        this.next = start + MINUTE_S;
        read++;
        if (this.deps.counters) this.deps.counters.minutesRead++;
      } catch (error) {
        this.next = start;
        if (this.deps.counters) this.deps.counters.readFailures++;
        const message = `minute ${iso(start)}: ${(error as Error).message}`.slice(0, METRICS_LIMITS.message);
        return this.setHealth({ state: read > 0 ? "partial" : "unavailable", message });
      }
    }
    this.setHealth({ state: "ok" });
  }

  private keep(minute: MinuteCounts): void {
    this.pending.push(minute);
    if (this.pending.length > MAX_MINUTES) {
      const dropped = this.pending.splice(0, this.pending.length - MAX_MINUTES);
      this.deps.log.error("metrics: minutes not sent in time are dropped", { minutes: dropped.length, from: iso(dropped[0]?.start ?? 0) });
    }
  }

  private setHealth(health: MetricsSourceHealth): void {
    if (health.state !== this.health.state || health.message !== this.health.message) {
      if (health.state === "ok") this.deps.log.info("metrics: reading Prometheus", {});
      else this.deps.log.error("metrics: Prometheus could not be read", { state: health.state, detail: health.message });
    }
    this.health = health;
  }

  /**
   * Sends the minutes read (none: a report of the health alone), in as many reports as the limits
   * need. A report the control plane refuses for itself (400, 403, 413) is dropped with a log line;
   * one it could not take now (429, 5xx, unreachable) is kept, and sent again after a backoff, never
   * before its Retry-After.
   */
  async send(): Promise<void> {
    let istioClusterId: string;
    try {
      istioClusterId = this.deps.context().istioClusterId;
    } catch {
      // Which Istio cluster ID is this cluster's is not known yet: a report would name a wrong one.
      this.sendAt = this.now() + CONTEXT_RETRY_MS;
      return;
    }
    let packs: ReturnType<typeof packReports>;
    try {
      packs = packReports({ cluster: this.deps.cluster, istioClusterId, health: this.health, maxEdges: this.deps.maxEdges, now: this.now() }, this.pending);
    } catch (error) {
      this.deps.log.error("metrics: the report cannot be built; its minutes are dropped", { detail: (error as Error).message });
      this.pending = [];
      this.sendAt = this.now() + this.deps.sendEveryMs;
      return;
    }
    for (const pack of packs) {
      try {
        await this.deps.post(pack.body);
        if (this.deps.counters) {
          this.deps.counters.reportsSent++;
          this.deps.counters.reportBytes += pack.body.byteLength;
        }
      } catch (error) {
        if (retryable(error)) {
          this.failures++;
          const wait = Math.max(
            ((error as ApiError).retryAfterSeconds ?? 0) * 1000,
            backoffMs(this.failures, { baseMs: 10_000, capMs: this.deps.sendEveryMs }),
          );
          this.sendAt = this.now() + wait;
          this.deps.log.error("metrics: report not sent, will retry", { detail: (error as Error).message, retryInMs: wait });
          return;
        }
        if (this.deps.counters) this.deps.counters.reportsDropped++;
        this.deps.log.error("metrics: report refused, its minutes are dropped", { detail: (error as Error).message, minutes: pack.minutes.length });
      }
      const sent = new Set(pack.minutes);
      this.pending = this.pending.filter((m) => !sent.has(m));
    }
    this.failures = 0;
    this.sendAt = this.now() + this.deps.sendEveryMs;
  }
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
