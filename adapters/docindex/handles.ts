/**
 * A bounded LRU of open SQLite handles, one per tenant file. Thousands of tenants must
 * not mean thousands of open file descriptors (each WAL database holds three), so the
 * least recently used handle is closed when the bound is reached.
 *
 * Closing on evict is safe because bun:sqlite is synchronous: callers take a handle and
 * finish with it before they next await, so no evicted handle is still in use.
 */
import type { Database } from "bun:sqlite";

export class HandleCache {
  // A Map iterates in insertion order; re-inserting on use keeps the oldest entry first.
  private readonly open = new Map<string, Database>();

  constructor(private readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new Error(`HandleCache capacity must be a positive integer, got ${capacity}`);
    }
  }

  get size(): number {
    return this.open.size;
  }

  /** The open handle for `key`, opening it with `openFn` when absent. */
  get(key: string, openFn: () => Database): Database {
    const hit = this.open.get(key);
    if (hit) {
      this.open.delete(key);
      this.open.set(key, hit);
      return hit;
    }
    const db = openFn();
    this.open.set(key, db);
    while (this.open.size > this.capacity) {
      const oldest = this.open.keys().next().value;
      if (oldest === undefined) break;
      this.close(oldest);
    }
    return db;
  }

  has(key: string): boolean {
    return this.open.has(key);
  }

  /** Closes and forgets `key`'s handle, if open. */
  close(key: string): void {
    const db = this.open.get(key);
    if (!db) return;
    this.open.delete(key);
    db.close();
  }

  closeAll(): void {
    for (const key of [...this.open.keys()]) this.close(key);
  }
}
