/**
 * A keyed queue that coalesces (docs/gitops.md#the-agent): one entry per key, the latest value wins.
 * A value set waits `windowMs` for others to join its batch, and a key is never sent twice within
 * `minGapMs`, so a resource edited a hundred times in a second is sent once or twice, in its latest
 * form. A key taken is in flight until done(); a value set meanwhile waits for it. Memory is one
 * entry per key: bounded by the number of keys (custom resources) however many changes arrive.
 */
export interface Taken<T> {
  key: string;
  value: T;
}

interface Entry<T> {
  value: T;
  readyAt: number;
  /** Sent in a batch of its own (its batch was refused as a whole). */
  alone: boolean;
}

export class CoalescingQueue<T> {
  private readonly pending = new Map<string, Entry<T>>();
  private readonly inFlight = new Map<string, T>();
  private readonly lastSent = new Map<string, number>();

  constructor(private readonly timing: { windowMs: number; minGapMs: number }) {}

  /** Sets the latest value of `key`; an entry already waiting keeps its turn. */
  set(key: string, value: T, now: number): void {
    const waiting = this.pending.get(key);
    if (waiting) {
      waiting.value = value;
      return;
    }
    const gapEnd = (this.lastSent.get(key) ?? Number.NEGATIVE_INFINITY) + this.timing.minGapMs;
    this.pending.set(key, { value, readyAt: Math.max(now + this.timing.windowMs, gapEnd), alone: false });
  }

  /** The value waiting for `key`, else the one in flight. */
  peek(key: string): T | undefined {
    return this.pending.get(key)?.value ?? this.inFlight.get(key);
  }

  /** Forgets the value waiting for `key` (one in flight ends as it will). */
  delete(key: string): void {
    this.pending.delete(key);
  }

  /**
   * Up to `max` values ready at `now` (and `accepted`) whose key is not in flight, oldest first; they
   * are in flight until done().
   */
  take(max: number, now: number, accepted: (value: T) => boolean = () => true): Taken<T>[] {
    for (const [key, at] of this.lastSent) if (at + this.timing.minGapMs <= now) this.lastSent.delete(key);
    const out: Taken<T>[] = [];
    for (const [key, entry] of this.pending) {
      if (out.length >= max) break;
      if (entry.readyAt > now || this.inFlight.has(key) || !accepted(entry.value)) continue;
      if (entry.alone && out.length > 0) continue;
      out.push({ key, value: entry.value });
      if (entry.alone) break;
    }
    for (const { key, value } of out) {
      this.pending.delete(key);
      this.inFlight.set(key, value);
      this.lastSent.set(key, now);
    }
    return out;
  }

  /** Ends the flight of `key`. */
  done(key: string): void {
    this.inFlight.delete(key);
  }

  /**
   * Puts a value that could not be sent back, ready at `at` — unless a newer one was set meanwhile,
   * which wins. `alone`: it goes in a batch of its own.
   */
  retry(key: string, value: T, at: number, alone = false): void {
    if (this.pending.has(key)) return;
    this.pending.set(key, { value, readyAt: at, alone });
  }

  /** When the next value waiting is ready (undefined: none waits). */
  nextReadyAt(): number | undefined {
    let next: number | undefined;
    for (const [key, entry] of this.pending) if (!this.inFlight.has(key) && (next === undefined || entry.readyAt < next)) next = entry.readyAt;
    return next;
  }

  /** Whether nothing waits and nothing is in flight. */
  idle(): boolean {
    return this.pending.size === 0 && this.inFlight.size === 0;
  }

  /** Values waiting or in flight. */
  get size(): number {
    return this.pending.size + this.inFlight.size;
  }

  clear(): void {
    this.pending.clear();
    this.inFlight.clear();
    this.lastSent.clear();
  }
}
