/**
 * Debounced, serialised persistence for one collaboration room (after hocuspocus
 * Document/storeDocumentHooks): a change arms a save `debounceMs` later, pushed back by
 * further changes but never past `maxWaitMs` after the first unsaved one, so a busy room
 * still reaches the store. One save runs at a time; changes made during a save schedule
 * the next. A failed save leaves the room dirty and retries with backoff: the document
 * stays in memory until a save lands (or shutdown gives up and says so).
 */

export interface SaverOptions {
  debounceMs: number;
  maxWaitMs: number;
  /** First retry delay after a failed save; doubles per consecutive failure. */
  retryMs: number;
  maxRetryMs: number;
  /** Writes the current state; throws when the store fails. */
  save: () => Promise<void>;
  onError: (error: unknown, consecutiveFailures: number) => void;
}

export class DebouncedSaver {
  /** Bumped by every change; a save records the version it captured. */
  private version = 0;
  private savedVersion = 0;
  private firstUnsavedAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer should save; a timer that fires earlier sleeps again (lazy re-arm). */
  private dueAt = 0;
  /** When the armed timer will fire. */
  private timerAt = 0;
  private running: Promise<void> | undefined;
  private failures = 0;
  private closed = false;

  constructor(private readonly opts: SaverOptions) {
    if (!(opts.debounceMs >= 0) || !(opts.maxWaitMs >= opts.debounceMs)) {
      throw new RangeError("collab saver: need 0 <= debounceMs <= maxWaitMs");
    }
  }

  get dirty(): boolean {
    return this.version !== this.savedVersion;
  }

  get saving(): boolean {
    return this.running !== undefined;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Records a change and (re)arms the debounced save. */
  touch(): void {
    this.version++;
    if (this.closed) return;
    const now = performance.now();
    this.firstUnsavedAt ??= now;
    if (this.failures > 0 && this.timer) return; // a retry is already scheduled
    const due = Math.min(now + this.opts.debounceMs, this.firstUnsavedAt + this.opts.maxWaitMs);
    // Every update touches: moving a timer per update would cost more than the update.
    if (this.timer && this.timerAt <= due) {
      this.dueAt = due;
      return;
    }
    this.arm(Math.max(0, due - now));
  }

  /**
   * Saves now if anything is unsaved (after any save in flight) and resolves once the
   * state as of this call is stored; rejects when that save fails (a retry stays armed).
   */
  async flush(): Promise<void> {
    const target = this.version;
    while (this.savedVersion < target) {
      if (this.running) {
        await this.running.catch(() => {});
        continue;
      }
      this.clearTimer();
      await this.run(true);
    }
  }

  /** Stops scheduling; flush() still works (the final flush before unload). */
  close(): void {
    this.closed = true;
    this.clearTimer();
  }

  private arm(delay: number): void {
    this.clearTimer();
    const now = performance.now();
    this.timerAt = now + delay;
    this.dueAt = this.timerAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const early = this.dueAt - performance.now();
      if (early > 1) return this.arm(early);
      if (this.running) return; // the save in flight re-arms when it ends
      void this.run(false).catch(() => {});
    }, delay);
    if (typeof this.timer === "object" && "unref" in this.timer) this.timer.unref();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** One save; `rethrow` for flush() callers, background saves report through onError. */
  private run(rethrow: boolean): Promise<void> {
    const captured = this.version;
    const p = (async () => {
      try {
        await this.opts.save();
        if (captured > this.savedVersion) this.savedVersion = captured;
        this.failures = 0;
        this.firstUnsavedAt = this.dirty ? performance.now() : undefined;
      } catch (error) {
        this.failures++;
        this.opts.onError(error, this.failures);
        if (!this.closed) this.arm(Math.min(this.opts.maxRetryMs, this.opts.retryMs * 2 ** (this.failures - 1)));
        if (rethrow) throw error;
        return;
      } finally {
        this.running = undefined;
      }
      // Changes that arrived during the save: their debounce restarts now.
      if (this.dirty && !this.closed && !this.timer) this.arm(this.opts.debounceMs);
    })();
    this.running = p;
    return p;
  }
}
