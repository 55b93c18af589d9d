/**
 * Counts accepted requests per user and UTC day, writing them behind to the control
 * plane so the request path never waits on a database write.
 *
 * - Pending counts flush every `flushMs` (CAIRN_USAGE_FLUSH_MS), on flush() and on close().
 * - Bounded: when `maxPending` distinct (user, day) entries are pending, a flush starts at
 *   once. Only while the store keeps failing can entries pile up further; past twice
 *   `maxPending` (pending plus in-flight), a request for a new entry is dropped, counted in
 *   `dropped` and reported as a "dropped" event, so no count is ever lost silently.
 * - A failed flush puts its counts back and is retried on the next tick.
 * - Flushes and usage() reads run one at a time, so a read never sees a batch both in the
 *   database and in memory, or in neither: usage() = persisted + this instance's pending,
 *   exact for a single instance. Other instances' pending counts appear once they flush.
 * - Persisted totals read by usage() are reused for `flushMs` (and kept exact by adding
 *   this instance's own flushed batches), so a busy /v1/user/me does not read the store
 *   on every call; other instances' flushes show within one more interval.
 */
import { AppError } from "../domain/errors.ts";
import type { ControlPlaneStore, UsageIncrement } from "../domain/ports.ts";
import { utcDay } from "../domain/rate-limit.ts";

const PERSISTED_CACHE_MAX = 10_000;

export type UsageStore = Pick<ControlPlaneStore, "addUsage" | "getUsage">;

export type UsageEvent =
  | { type: "flush_failed"; error: unknown; entries: number }
  | { type: "dropped"; userId: number; day: string; totalDropped: number };

export interface UsageRecorderOptions {
  /** Milliseconds between background flushes (default 1000). */
  flushMs?: number;
  /** Distinct pending (user, day) entries that trigger an immediate flush (default 10,000). */
  maxPending?: number;
  /** Epoch milliseconds, used when record()/usage() get no explicit time. */
  now?: () => number;
  /** Where failures and drops are reported (the composition root passes the logger). */
  onEvent?: (event: UsageEvent) => void;
}

export interface UsageTotals {
  today: number;
  this_month: number;
}

export class UsageRecorder {
  readonly flushMs: number;
  readonly maxPending: number;
  private readonly now: () => number;
  private readonly onEvent: (event: UsageEvent) => void;
  private pending = new Map<string, UsageIncrement>();
  /** Non-empty only while a flush awaits the store. */
  private inFlight = new Map<string, UsageIncrement>();
  private tail: Promise<unknown> = Promise.resolve();
  /** A flush that is queued but has not taken the pending entries yet; later callers join it. */
  private queued: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private droppedCount = 0;
  /** Set while the store is failing: retries wait for the timer instead of every new entry. */
  private failing = false;
  private closing: Promise<void> | undefined;
  /** Persisted totals per user, reused for flushMs; bounded by PERSISTED_CACHE_MAX. */
  private readonly persisted = new Map<number, { day: string; at: number; totals: UsageTotals }>();

  constructor(
    private readonly store: UsageStore,
    opts: UsageRecorderOptions = {},
  ) {
    this.flushMs = positiveInt("flushMs", opts.flushMs ?? 1_000);
    this.maxPending = positiveInt("maxPending", opts.maxPending ?? 10_000);
    this.now = opts.now ?? Date.now;
    this.onEvent = opts.onEvent ?? (() => {});
  }

  /** Distinct (user, day) entries not yet persisted. */
  get pendingEntries(): number {
    return this.pending.size + this.inFlight.size;
  }

  /** Requests refused a new entry because the buffer was full (see class comment). */
  get dropped(): number {
    return this.droppedCount;
  }

  /** Counts one accepted request. Synchronous: the request path never waits on the store. */
  record(userId: number, now?: Date): void {
    if (this.closing) throw new AppError("unavailable", "Usage recording has stopped (shutting down)");
    const day = utcDay(now?.getTime() ?? this.now());
    const key = `${userId}|${day}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.count += 1;
      return;
    }
    if (this.pending.size + this.inFlight.size >= 2 * this.maxPending) {
      this.droppedCount += 1;
      this.onEvent({ type: "dropped", userId, day, totalDropped: this.droppedCount });
      return;
    }
    this.pending.set(key, { userId, day, count: 1 });
    if (this.pending.size >= this.maxPending && !this.failing) this.flushInBackground();
    else this.schedule();
  }

  /** Persisted usage plus this instance's pending counts for the day of `now` and its month. */
  usage(userId: number, now?: Date): Promise<UsageTotals> {
    const day = utcDay(now?.getTime() ?? this.now());
    const month = day.slice(0, 7);
    return this.serial(async () => {
      let { today, this_month } = await this.persistedTotals(userId, day);
      // inFlight is empty here: flushes hold the same turn.
      for (const e of this.pending.values()) {
        if (e.userId !== userId || !e.day.startsWith(month)) continue;
        this_month += e.count;
        if (e.day === day) today += e.count;
      }
      return { today, this_month };
    });
  }

  /** Persists everything recorded before the call; rejects (keeping the counts) if the store fails. */
  flush(): Promise<void> {
    this.queued ??= this.serial(() => this.runFlush());
    return this.queued;
  }

  /** Stops accepting records and flushes. Idempotent; a failed final flush rejects and may be retried with flush(). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.clearTimer();
      await this.flush();
    })();
    return this.closing;
  }

  private async runFlush(): Promise<void> {
    this.queued = undefined;
    this.clearTimer();
    if (this.pending.size === 0) return;
    this.inFlight = this.pending;
    this.pending = new Map();
    try {
      await this.store.addUsage([...this.inFlight.values()]);
    } catch (error) {
      // Put the batch back in front of anything recorded meanwhile; the counts add up.
      for (const [key, e] of this.inFlight) {
        const newer = this.pending.get(key);
        if (newer) newer.count += e.count;
        else this.pending.set(key, e);
      }
      const entries = this.inFlight.size;
      this.inFlight = new Map();
      this.failing = true;
      this.onEvent({ type: "flush_failed", error, entries });
      this.schedule();
      throw error;
    }
    for (const e of this.inFlight.values()) this.addToCache(e);
    this.inFlight = new Map();
    this.failing = false;
  }

  private async persistedTotals(userId: number, day: string): Promise<UsageTotals> {
    const hit = this.persisted.get(userId);
    const t = this.now();
    if (hit && hit.day === day && t - hit.at < this.flushMs) return { ...hit.totals };
    const totals = await this.store.getUsage(userId, day);
    if (this.persisted.size >= PERSISTED_CACHE_MAX) this.persisted.clear();
    this.persisted.set(userId, { day, at: t, totals: { ...totals } });
    return totals;
  }

  /** Keeps a cached total exact after this instance persisted `e`. */
  private addToCache(e: UsageIncrement): void {
    const hit = this.persisted.get(e.userId);
    if (!hit || !e.day.startsWith(hit.day.slice(0, 7))) return;
    hit.totals.this_month += e.count;
    if (e.day === hit.day) hit.totals.today += e.count;
  }

  private flushInBackground(): void {
    // Failures are reported through onEvent inside runFlush and retried by the timer.
    this.flush().catch(() => {});
  }

  private schedule(): void {
    if (this.timer !== undefined || this.closing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flushInBackground();
    }, this.flushMs);
    // A pending flush must not keep the process alive; shutdown calls close() instead.
    this.timer.unref?.();
  }

  private clearTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Runs fn after every earlier flush and read has settled. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn);
    this.tail = run.catch(() => {});
    return run;
  }
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`UsageRecorder: ${name} must be a positive integer, got ${v}`);
  return v;
}
