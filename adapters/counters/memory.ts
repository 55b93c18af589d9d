/**
 * In-process fixed-window counters for the embedded profile (one service instance).
 *
 * Bounded two ways: expired keys are swept on every write (cheaply, from the top of an
 * expiry heap, so a long-running process does not keep yesterday's windows), and at most
 * `maxKeys` live keys are held. Overflow policy "evict-soonest-expiring": when a new key
 * would exceed the bound, the key closest to its expiry is dropped and counted in
 * `evictions`. For rate limiting that key is the one whose loss matters least: its window
 * was about to reset anyway, whereas evicting a young day window would hand an account a
 * fresh daily quota.
 */
import type { CounterStore } from "../../domain/ports.ts";
import { ExpiryHeap } from "./expiry-heap.ts";
import { assertTtl } from "./ttl.ts";

export interface MemoryCounterStoreOptions {
  /** Most live keys held at once (default 100,000: two windows per active account). */
  maxKeys?: number;
  /** Epoch milliseconds; injectable so tests move time without sleeping. */
  now?: () => number;
}

interface Counter {
  value: number;
  expiresAt: number;
}

export const DEFAULT_MAX_COUNTER_KEYS = 100_000;

export class MemoryCounterStore implements CounterStore {
  readonly maxKeys: number;
  private readonly now: () => number;
  private readonly counters = new Map<string, Counter>();
  // Invariant: exactly one heap entry per key in `counters`; keys leave only via the heap.
  private readonly heap = new ExpiryHeap();
  private evicted = 0;
  private closed = false;

  constructor(opts: MemoryCounterStoreOptions = {}) {
    const maxKeys = opts.maxKeys ?? DEFAULT_MAX_COUNTER_KEYS;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) {
      throw new Error(`MemoryCounterStore: maxKeys must be a positive integer, got ${maxKeys}`);
    }
    this.maxKeys = maxKeys;
    this.now = opts.now ?? Date.now;
  }

  /** Live keys (after sweeping the expired ones). */
  get size(): number {
    this.sweep(this.now());
    return this.counters.size;
  }

  /** Live keys dropped by the overflow policy since start. */
  get evictions(): number {
    return this.evicted;
  }

  async incr(keys: { key: string; ttlMs: number }[]): Promise<number[]> {
    this.assertOpen();
    for (const k of keys) assertTtl(k.ttlMs);
    const now = this.now();
    this.sweep(now);
    // Synchronous from here on, so the whole batch is atomic with respect to other callers.
    return keys.map(({ key, ttlMs }) => this.bump(key, ttlMs, now));
  }

  /** incr() of one key, synchronously (the rate limiter's path on every request). */
  incrNow(key: string, ttlMs: number): number {
    this.assertOpen();
    assertTtl(ttlMs);
    const now = this.now();
    this.sweep(now);
    return this.bump(key, ttlMs, now);
  }

  private bump(key: string, ttlMs: number, now: number): number {
    const existing = this.counters.get(key);
    if (existing) {
      // Fixed window: the expiry is set once, when the key is created (PEXPIRE NX).
      existing.value += 1;
      return existing.value;
    }
    if (this.counters.size >= this.maxKeys) this.evictOne();
    const expiresAt = now + ttlMs;
    this.counters.set(key, { value: 1, expiresAt });
    this.heap.push({ key, expiresAt });
    return 1;
  }

  async get(key: string): Promise<number> {
    this.assertOpen();
    const c = this.counters.get(key);
    return c && c.expiresAt > this.now() ? c.value : 0;
  }

  async ping(): Promise<void> {
    this.assertOpen();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.counters.clear();
    this.heap.clear();
  }

  private sweep(now: number): void {
    for (let top = this.heap.peek(); top !== undefined && top.expiresAt <= now; top = this.heap.peek()) {
      this.heap.pop();
      this.counters.delete(top.key);
    }
  }

  private evictOne(): void {
    const victim = this.heap.pop();
    if (victim === undefined) return;
    this.counters.delete(victim.key);
    this.evicted += 1;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("MemoryCounterStore is closed");
  }
}
