/**
 * A keyed registry of long-lived values (actors): single-flight get-or-create, idle
 * unload, explicit unload, an LRU size bound, and close().
 *
 * The lifecycle follows hocuspocus (Hocuspocus.ts createDocument / unloadDocument):
 * - One map from key to an entry holding the creation promise, so concurrent gets for
 *   a key share one creation. A failed creation is removed, never cached.
 * - A key is created again only after its previous value has been fully destroyed, so
 *   an old value's final flush always lands before a new value loads.
 * - Unload is idempotent and, after each await, re-checks that the value is still idle
 *   and still the registered one: a get that arrives during `beforeUnload` keeps it.
 * - Detaching (removing from the map) is synchronous and happens before destroy, so the
 *   very next get after an explicit unload builds a fresh value.
 */
import { AppError } from "../domain/errors.ts";

export type UnloadReason = "idle" | "evicted" | "explicit" | "close";

export type RegistryErrorEvent<K> =
  | { phase: "destroy"; key: K; reason: UnloadReason; error: unknown }
  | { phase: "before_unload"; key: K; error: unknown };

export interface RegistryOptions<K, V> {
  /** For errors and reports. */
  name: string;
  create: (key: K) => Promise<V>;
  /** Tears a value down (stop the actor, flush). Awaited before the key may be created again. */
  destroy: (key: K, value: V, reason: UnloadReason) => Promise<void>;
  /** False while the value has work or users (queued messages, open sockets). Default: always idle. */
  isIdle?: (value: V) => boolean;
  /** Runs before an idle unload (e.g. a flush); the registry re-checks idleness afterwards. */
  beforeUnload?: (key: K, value: V) => Promise<void>;
  /** Unload values unused this long (ms). Infinity (default) or 0 disables. */
  idleMs?: number;
  /** Most entries held; beyond it the least recently used idle entry is evicted. Default Infinity. */
  maxSize?: number;
  /** Clock in ms (tests inject one). */
  now?: () => number;
  /** Errors of background work (timers, destroys nobody awaits) go here, to be logged. */
  onError: (event: RegistryErrorEvent<K>) => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

interface Entry<V> {
  promise: Promise<V>;
  /** Set once creation succeeded. */
  loaded: { value: V } | undefined;
  lastUsed: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** An idle unload in progress, shared by concurrent attempts. */
  unloading: Promise<boolean> | undefined;
}

export class Registry<K, V> {
  // Insertion order doubles as LRU order: a get moves its key to the end.
  private readonly entries = new Map<K, Entry<V>>();
  /** Teardowns in progress per key; a new creation for the key waits for them. */
  private readonly destroying = new Map<K, Promise<void>>();
  private readonly idleMs: number;
  private readonly maxSize: number;
  private readonly now: () => number;
  private closing: Promise<void> | undefined;

  constructor(private readonly opts: RegistryOptions<K, V>) {
    const idle = opts.idleMs ?? Number.POSITIVE_INFINITY;
    if (!(idle >= 0)) throw new RangeError(`registry ${opts.name}: idleMs must be >= 0 (got ${idle})`);
    this.idleMs = idle === 0 ? Number.POSITIVE_INFINITY : idle;
    const max = opts.maxSize ?? Number.POSITIVE_INFINITY;
    if (!(max >= 1)) throw new RangeError(`registry ${opts.name}: maxSize must be >= 1 (got ${max})`);
    this.maxSize = max;
    this.now = opts.now ?? Date.now;
  }

  /** Entries held, loading ones included. */
  get size(): number {
    return this.entries.size;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** The loaded value, without creating or counting as a use. */
  peek(key: K): V | undefined {
    return this.entries.get(key)?.loaded?.value;
  }

  keys(): K[] {
    return [...this.entries.keys()];
  }

  /** The value for key, created once however many callers ask at the same time. */
  get(key: K): Promise<V> {
    if (this.closing) {
      return Promise.reject(new AppError("unavailable", `registry ${this.opts.name} is closed`));
    }
    const found = this.entries.get(key);
    if (found) {
      found.lastUsed = this.now();
      this.entries.delete(key);
      this.entries.set(key, found);
      return found.promise;
    }
    if (this.entries.size >= this.maxSize && !this.evictOne()) {
      return Promise.reject(
        new AppError("unavailable", `registry ${this.opts.name} is full (${this.maxSize} busy entries)`),
      );
    }
    const { promise, resolve, reject } = Promise.withResolvers<V>();
    const entry: Entry<V> = {
      promise,
      loaded: undefined,
      lastUsed: this.now(),
      timer: undefined,
      unloading: undefined,
    };
    this.entries.set(key, entry);
    this.load(key, entry).then(resolve, reject);
    return promise;
  }

  /**
   * Removes the key now, whatever its state, and destroys its value (after its creation
   * settles, if it is still loading). Idempotent: a repeat call waits for the same
   * teardown. Resolves false when the key was not held.
   */
  async unload(key: K): Promise<boolean> {
    const entry = this.entries.get(key);
    if (!entry) {
      await this.destroying.get(key);
      return false;
    }
    await this.detach(key, entry, "explicit");
    return true;
  }

  /** Unloads every loaded entry idle for idleMs (the timers do this too). Returns how many. */
  async unloadIdle(): Promise<number> {
    const attempts: Promise<boolean>[] = [];
    for (const [key, entry] of this.entries) {
      if (this.isIdleNow(key, entry)) attempts.push(this.tryUnloadIdle(key, entry));
    }
    const done = await Promise.all(attempts);
    return done.filter(Boolean).length;
  }

  /** Unloads everything and refuses further gets. Idempotent. */
  close(): Promise<void> {
    if (!this.closing) {
      for (const [key, entry] of [...this.entries]) void this.detach(key, entry, "close");
      this.closing = Promise.all([...this.destroying.values()]).then(() => undefined);
    }
    return this.closing;
  }

  private async load(key: K, entry: Entry<V>): Promise<V> {
    // The previous value for this key must finish its teardown (its last flush) first.
    const prior = this.destroying.get(key);
    if (prior) await prior;
    let value: V;
    try {
      value = await this.opts.create(key);
    } catch (error) {
      if (this.entries.get(key) === entry) this.entries.delete(key);
      throw error;
    }
    entry.loaded = { value };
    // A slow creation must not count as idle time: the caller is about to use the value.
    entry.lastUsed = this.now();
    if (this.entries.get(key) === entry) this.arm(key, entry, this.idleMs);
    return value;
  }

  /** Synchronously removes the entry, then tears its value down. */
  private detach(key: K, entry: Entry<V>, reason: UnloadReason): Promise<void> {
    if (this.entries.get(key) !== entry) return this.destroying.get(key) ?? Promise.resolve();
    this.entries.delete(key);
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    const teardown = (async () => {
      let value: V;
      try {
        value = await entry.promise;
      } catch {
        return; // creation failed: nothing to destroy (its caller got the error)
      }
      try {
        await this.opts.destroy(key, value, reason);
      } catch (error) {
        this.opts.onError({ phase: "destroy", key, reason, error });
      }
    })();
    // This teardown begins after any earlier one for the key (its creation waited for
    // that), so it alone stands for "the key is still being torn down".
    this.destroying.set(key, teardown);
    void teardown.then(() => {
      if (this.destroying.get(key) === teardown) this.destroying.delete(key);
    });
    return teardown;
  }

  private isIdleNow(key: K, entry: Entry<V>): boolean {
    return (
      this.closing === undefined &&
      this.entries.get(key) === entry &&
      entry.loaded !== undefined &&
      this.now() - entry.lastUsed >= this.idleMs &&
      (this.opts.isIdle?.(entry.loaded.value) ?? true)
    );
  }

  private tryUnloadIdle(key: K, entry: Entry<V>): Promise<boolean> {
    if (entry.unloading) return entry.unloading;
    const attempt = (async () => {
      if (!this.isIdleNow(key, entry)) return false;
      if (this.opts.beforeUnload && entry.loaded) {
        try {
          await this.opts.beforeUnload(key, entry.loaded.value);
        } catch (error) {
          this.opts.onError({ phase: "before_unload", key, error });
          return false;
        }
        // Anything may have happened during the await: a get, new work, an explicit
        // unload, a replacement entry. Unload only what is still idle and still ours.
        if (!this.isIdleNow(key, entry)) return false;
      }
      await this.detach(key, entry, "idle");
      return true;
    })();
    entry.unloading = attempt;
    void attempt.finally(() => {
      entry.unloading = undefined;
      // Still registered (it was busy or used meanwhile): keep watching it.
      if (this.entries.get(key) === entry && !entry.timer) this.arm(key, entry, this.idleMs);
    });
    return attempt;
  }

  /**
   * One timer per entry, re-armed lazily: a get only stamps lastUsed, and the timer, when
   * it fires early, sleeps again for the remainder. Cheaper than clearTimeout/setTimeout
   * on every use, with the same effect as resetting the timer.
   */
  private arm(key: K, entry: Entry<V>, delay: number): void {
    if (!Number.isFinite(this.idleMs) || this.closing) return;
    // setTimeout treats delays past 2^31-1 ms as 1 ms; a long idle time just re-arms.
    entry.timer = setTimeout(
      () => {
        entry.timer = undefined;
        if (this.entries.get(key) !== entry) return;
        const idleFor = this.now() - entry.lastUsed;
        if (idleFor < this.idleMs) return this.arm(key, entry, this.idleMs - idleFor);
        void this.tryUnloadIdle(key, entry);
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    // An idle timer must never keep the process alive.
    if (typeof entry.timer === "object" && "unref" in entry.timer) entry.timer.unref();
  }

  /** Evicts the least recently used idle, loaded entry; false when every entry is busy. */
  private evictOne(): boolean {
    for (const [key, entry] of this.entries) {
      if (entry.loaded && !entry.unloading && (this.opts.isIdle?.(entry.loaded.value) ?? true)) {
        void this.detach(key, entry, "evicted");
        return true;
      }
    }
    return false;
  }
}
