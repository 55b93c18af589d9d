/**
 * Counts accepted requests per user and UTC day, writing them behind to the control
 * plane so the request path never waits on a database write.
 *
 * - Pending counts flush every `flushMs` (CAIRN_USAGE_FLUSH_MS), on flush() and on close().
 * - Bounded: when `maxPending` distinct (user, day) entries are pending, a flush starts at
 *   once. Only while the store keeps failing can entries pile up further; past twice
 *   `maxPending` (pending plus in-flight), a request for a new entry is dropped, counted in
 *   `dropped` and reported as a "dropped" event, so no count is ever lost silently.
 * - A failed flush puts its counts back and is retried on the next tick. A failed batch is
 *   retried row by row at once, so one bad row cannot hold back the other users' counts.
 * - Counts of a user deleted before they were written are "orphaned": the store skips
 *   them, they are reported as an "orphaned" event, counted in `orphaned` and discarded.
 * - A flush is one transaction per batch (or per row, see above): a crash mid-flush leaves
 *   a batch written entirely or not at all. What flush() resolved for is persisted exactly
 *   once; what was still in memory at a crash (at most flushMs of counts) is lost.
 * - Flushes and usage() reads run one at a time, so a read never sees a batch both in the
 *   database and in memory, or in neither: usage() = persisted + this instance's pending,
 *   exact for a single instance. Other instances' pending counts appear once they flush.
 * - Persisted totals read by usage() are reused for `flushMs` (and kept exact by adding
 *   this instance's own flushed batches), so a busy /v1/user/me does not read the store
 *   on every call; other instances' flushes show within one more interval.
 * - usage() with those totals cached and no flush or read under way answers without
 *   joining the queue (nothing can be half-written then), and finds the user's pending
 *   counts by key, one lookup per pending day, instead of scanning every pending entry.
 */
import { AppError } from "../../domain/errors.ts";
import type { ControlPlaneStore, UsageIncrement, UsageWriteResult } from "../../domain/ports.ts";
import type { UsagePort } from "../../domain/user/ports.ts";
import { utcDay } from "../../domain/user/rate-limit.ts";

const PERSISTED_CACHE_MAX = 10_000;
/** Failed single-row writes in a row after which a flush gives up until the next tick. */
const ISOLATE_STREAK = 3;

export type UsageStore = Pick<ControlPlaneStore, "addUsage" | "getUsage">;

export type UsageEvent =
  | { type: "flush_failed"; error: unknown; entries: number }
  | { type: "dropped"; userId: number; day: string; totalDropped: number }
  /** The user was deleted before its counts were written: they are discarded, not retried. */
  | { type: "orphaned"; userId: number; day: string; count: number };

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

export class UsageRecorder implements UsagePort {
  readonly flushMs: number;
  readonly maxPending: number;
  private readonly now: () => number;
  private readonly onEvent: (event: UsageEvent) => void;
  private pending = new Map<string, UsageIncrement>();
  /** Every day that has an entry in `pending` (a superset): usage() looks those keys up. */
  private pendingDays = new Set<string>();
  /** Flushes and reads queued or running in `serial`; while 0, inFlight is empty. */
  private active = 0;
  /** Non-empty only while a flush awaits the store. */
  private inFlight = new Map<string, UsageIncrement>();
  private tail: Promise<unknown> = Promise.resolve();
  /** A flush that is queued but has not taken the pending entries yet; later callers join it. */
  private queued: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private droppedCount = 0;
  private orphanedCount = 0;
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

  /** Counts discarded because their user was deleted before they were written. */
  get orphaned(): number {
    return this.orphanedCount;
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
    this.pendingDays.add(day);
    if (this.pending.size >= this.maxPending && !this.failing) this.flushInBackground();
    else this.schedule();
  }

  /** Persisted usage plus this instance's pending counts for the day of `now` and its month. */
  usage(userId: number, now?: Date): Promise<UsageTotals> {
    const day = utcDay(now?.getTime() ?? this.now());
    if (this.active === 0) {
      const cached = this.cachedTotals(userId, day);
      if (cached) return Promise.resolve(this.withPending(userId, day, cached));
    }
    // inFlight is empty inside the turn: flushes hold the same queue.
    return this.serial(async () => this.withPending(userId, day, await this.persistedTotals(userId, day)));
  }

  /** `persisted` plus this instance's pending counts of the user for `day` and its month. */
  private withPending(userId: number, day: string, persisted: UsageTotals): UsageTotals {
    let { today, this_month } = persisted;
    const month = day.slice(0, 7);
    for (const d of this.pendingDays) {
      if (!d.startsWith(month)) continue;
      const e = this.pending.get(`${userId}|${d}`);
      if (!e) continue;
      this_month += e.count;
      if (d === day) today += e.count;
    }
    return { today, this_month };
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
    this.pendingDays = new Set();
    const { failed, error } = await this.write([...this.inFlight.values()]);
    // Put failed rows back, merged with anything recorded meanwhile; the counts add up.
    for (const e of failed) {
      const key = `${e.userId}|${e.day}`;
      const newer = this.pending.get(key);
      if (newer) newer.count += e.count;
      else {
        this.pending.set(key, e);
        this.pendingDays.add(e.day);
      }
    }
    this.inFlight = new Map();
    this.failing = failed.length > 0;
    if (failed.length === 0) return;
    this.onEvent({ type: "flush_failed", error, entries: failed.length });
    this.schedule();
    throw error;
  }

  /**
   * Writes a batch; returns the rows that are still not persisted. When the batch fails,
   * the rows are written one at a time so that one bad row cannot hold back the others,
   * stopping after ISOLATE_STREAK failures in a row (then the store itself is failing, and
   * a row-by-row pass over a large batch would only hammer it). Rows never tried go first
   * in the returned list, so the next attempt does not start on the same failing rows.
   */
  private async write(batch: UsageIncrement[]): Promise<{ failed: UsageIncrement[]; error?: unknown }> {
    try {
      this.settle(batch, await this.store.addUsage(batch));
      return { failed: [] };
    } catch (error) {
      if (batch.length === 1) return { failed: batch, error };
      const tried: UsageIncrement[] = [];
      let lastError: unknown = error;
      let streak = 0;
      for (const [i, e] of batch.entries()) {
        if (streak >= ISOLATE_STREAK) return { failed: [...batch.slice(i), ...tried], error: lastError };
        try {
          this.settle([e], await this.store.addUsage([e]));
          streak = 0;
        } catch (err) {
          tried.push(e);
          lastError = err;
          streak += 1;
        }
      }
      return { failed: tried, error: tried.length > 0 ? lastError : undefined };
    }
  }

  /** Accounts for a written batch: cached totals stay exact; orphaned rows are reported and discarded. */
  private settle(batch: UsageIncrement[], result: UsageWriteResult | undefined): void {
    const orphaned = new Set((result?.orphaned ?? []).map((e) => `${e.userId}|${e.day}`));
    for (const e of batch) {
      if (!orphaned.has(`${e.userId}|${e.day}`)) {
        this.addToCache(e);
        continue;
      }
      this.orphanedCount += e.count;
      this.persisted.delete(e.userId);
      this.onEvent({ type: "orphaned", userId: e.userId, day: e.day, count: e.count });
    }
  }

  /** The persisted totals while still fresh (younger than flushMs), as a copy. */
  private cachedTotals(userId: number, day: string): UsageTotals | null {
    const hit = this.persisted.get(userId);
    if (hit && hit.day === day && this.now() - hit.at < this.flushMs) return { ...hit.totals };
    return null;
  }

  private async persistedTotals(userId: number, day: string): Promise<UsageTotals> {
    const cached = this.cachedTotals(userId, day);
    if (cached) return cached;
    const t = this.now();
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
    this.active += 1;
    const run = this.tail.then(fn);
    this.tail = run.then(
      () => {
        this.active -= 1;
      },
      () => {
        this.active -= 1;
      },
    );
    return run;
  }
}

function positiveInt(name: string, v: number): number {
  if (!Number.isInteger(v) || v < 1) throw new Error(`UsageRecorder: ${name} must be a positive integer, got ${v}`);
  return v;
}
