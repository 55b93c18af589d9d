/**
 * User rows kept between reads, never older than the database: every lookup first asks the
 * engine's change watcher (SqlClient.changeWatcher) whether anything was committed since
 * the previous lookup, and any commit, to any table by any connection, empties the cache.
 * So a tier, role, barrier or e-mail change, or a deleted user, is seen by the very next
 * lookup, exactly as when the row is read every time (the bearer path reads it on every
 * request, docs/architecture.md). Engines without a watcher (PostgreSQL, where other
 * instances write and only a round trip can tell) get no cache: the row is read as before.
 *
 * Bounded by `max` entries (oldest inserted out first). Rows are handed out as shallow
 * copies of a frozen row, so no caller can change what the next caller gets.
 */
import type { SqlClient, User } from "../../domain/ports.ts";

export const USER_CACHE_MAX = 10_000;

type Key = number | string;

export class FreshUserCache {
  private readonly rows = new Map<Key, User | null>();
  /** Bumped whenever the watcher reports a commit: a read that spans a bump is not kept. */
  private generation = 0;

  private constructor(
    private readonly watcher: { changed(): boolean },
    readonly max: number,
  ) {}

  /** A cache over `sql`'s change watcher, or null where the engine has none. */
  static over(sql: SqlClient, max = USER_CACHE_MAX): FreshUserCache | null {
    const watcher = sql.changeWatcher?.() ?? null;
    return watcher ? new FreshUserCache(watcher, max) : null;
  }

  get size(): number {
    return this.rows.size;
  }

  /**
   * The cached row for `key` (null: cached as absent), else `read()`'s answer, kept only if
   * no commit was noticed between the check before the read and the one after it: a row
   * read before a commit that the cache had not seen yet is never kept.
   */
  async lookup(key: Key, read: () => Promise<User | null>): Promise<User | null> {
    this.sync();
    const hit = this.rows.get(key);
    if (hit !== undefined) return hit && { ...hit };
    const before = this.generation;
    const row = await read();
    this.sync();
    if (this.generation === before) this.keep(key, row);
    return row;
  }

  private sync(): void {
    if (!this.watcher.changed()) return;
    this.generation += 1;
    this.rows.clear();
  }

  private keep(key: Key, row: User | null): void {
    if (this.rows.size >= this.max) {
      const oldest = this.rows.keys().next().value;
      if (oldest !== undefined) this.rows.delete(oldest);
    }
    this.rows.set(key, row && Object.freeze({ ...row, roles: frozen(row.roles), barriers: frozen(row.barriers) }));
  }
}

function frozen(list: string[]): string[] {
  return Object.freeze([...list]) as string[];
}
