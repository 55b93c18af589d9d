/**
 * SqlClient over bun:sqlite (WAL). bun:sqlite is synchronous; an async mutex keeps a
 * transaction's statements from interleaving with other callers' statements on the
 * one shared connection.
 */
import { Database, type SQLQueryBindings } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SqlClient, SqlParam } from "../../domain/ports.ts";
import { Mutex } from "./mutex.ts";
import { type ChangeWatcher, WalHeader } from "./wal-watch.ts";

function bind(params: SqlParam[] | undefined): SQLQueryBindings[] {
  if (!params) return [];
  return params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p)) as SQLQueryBindings[];
}

class SqliteTx implements SqlClient {
  readonly dialect = "sqlite" as const;
  constructor(protected readonly db: Database) {}

  async all<T>(sql: string, params?: SqlParam[]): Promise<T[]> {
    return this.db.query(sql).all(...bind(params)) as T[];
  }
  async get<T>(sql: string, params?: SqlParam[]): Promise<T | undefined> {
    return (this.db.query(sql).get(...bind(params)) ?? undefined) as T | undefined;
  }
  async run(sql: string, params?: SqlParam[]): Promise<{ changes: number }> {
    const r = this.db.query(sql).run(...bind(params));
    return { changes: r.changes };
  }
  async exec(sql: string): Promise<void> {
    this.db.exec(sql);
  }
  async transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    // Nested: reuse the open transaction (savepoints are not needed by callers).
    return fn(this);
  }
  async close(): Promise<void> {}
}

const ATTACH_NAME_RE = /^[a-z_][a-z0-9_]{0,31}$/;

export interface SqliteOptions {
  /**
   * Databases attached under a schema name, so `name.table` resolves on SQLite as a
   * Postgres schema does (the ci/dm/pm/md read models). Each is its own file.
   */
  attach?: { name: string; path: string }[];
}

export class SqliteClient implements SqlClient {
  readonly dialect = "sqlite" as const;
  private readonly db: Database;
  private readonly tx: SqliteTx;
  private readonly mutex = new Mutex();
  private closed = false;
  /** The main database's wal-index header, mapped on first use (undefined: not tried yet). */
  private walHeader: WalHeader | null | undefined;

  constructor(
    private readonly path: string,
    opts: SqliteOptions = {},
  ) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { create: true, strict: true });
    this.db.exec("PRAGMA journal_mode = WAL;");
    this.db.exec("PRAGMA synchronous = NORMAL;");
    this.db.exec("PRAGMA busy_timeout = 5000;");
    this.db.exec("PRAGMA foreign_keys = ON;");
    for (const a of opts.attach ?? []) {
      if (!ATTACH_NAME_RE.test(a.name)) throw new Error(`attach name '${a.name}' must match ${ATTACH_NAME_RE}`);
      if (a.path !== ":memory:") mkdirSync(dirname(a.path), { recursive: true });
      this.db.query(`ATTACH DATABASE ? AS ${a.name}`).run(a.path);
      this.db.exec(`PRAGMA ${a.name}.journal_mode = WAL;`);
    }
    this.tx = new SqliteTx(this.db);
  }

  all<T>(sql: string, params?: SqlParam[]): Promise<T[]> {
    return this.mutex.idle ? this.tx.all<T>(sql, params) : this.mutex.run(() => this.tx.all<T>(sql, params));
  }
  get<T>(sql: string, params?: SqlParam[]): Promise<T | undefined> {
    return this.mutex.idle ? this.tx.get<T>(sql, params) : this.mutex.run(() => this.tx.get<T>(sql, params));
  }
  run(sql: string, params?: SqlParam[]): Promise<{ changes: number }> {
    return this.mutex.idle ? this.tx.run(sql, params) : this.mutex.run(() => this.tx.run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.mutex.run(() => this.tx.exec(sql));
  }
  transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const out = await fn(this.tx);
        this.db.exec("COMMIT");
        return out;
      } catch (err) {
        this.db.exec("ROLLBACK");
        throw err;
      }
    });
  }
  /**
   * A watcher of commits to the main database by any connection or process (wal-watch.ts),
   * for caches that must never serve a row older than the last commit; null when the
   * database has no readable wal-index (in memory, or not in WAL mode).
   */
  changeWatcher(): ChangeWatcher | null {
    if (this.walHeader === undefined) {
      this.walHeader = this.path === ":memory:" ? null : WalHeader.open(this.path, () => !this.closed);
    }
    return this.walHeader?.watcher() ?? null;
  }
  async close(): Promise<void> {
    await this.mutex.run(async () => {
      // Before the connection lets go of the -shm file: watchers stop reading it first.
      this.closed = true;
      this.db.close();
    });
  }
}
