/**
 * The embedded time-series store's namespaces: one DuckDB file, one schema per tenant.
 *
 * The namespace string is the tenant's table prefix, `tenantPrefix(tenantId)`
 * (`t_<32 hex>`). Here it names a DuckDB schema, so a tenant's table `trades` is
 * `t_<hex>.trades`; QuestDB has no schemas, so its adapter will use the same string as a
 * table-name prefix (`t_<hex>_trades`). Either way the tenant's tables are exactly those
 * under the prefix, and code outside the adapter never spells a qualified name itself.
 *
 * Every statement goes through one connection and one mutex. The node-api runs queries
 * on libuv worker threads (the event loop stays free); the mutex exists because DuckDB
 * transactions belong to a connection, so a statement issued between another caller's
 * BEGIN and COMMIT would silently join that transaction, and because concurrent DDL on
 * the catalog can abort with write-write conflicts.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from "@duckdb/node-api";
import { AppError } from "../../domain/errors.ts";
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { Mutex } from "../sql/index.ts";
import { DuckDbRealtimeTables, META_TABLE } from "./rtdb.ts";

export interface DuckDbTimeSeriesOptions {
  /** Root data directory; the database is `<dataDir>/timeseries.duckdb`. */
  dataDir: string;
  /** DuckDB worker threads for this instance (DuckDB's default is every core). */
  threads?: number;
}

const PREFIX_PATTERN = /^t_[0-9a-z]{1,64}$/;
const MARKER = "_namespace";

export class DuckDbTimeSeries implements NamespacePort {
  readonly engine = "timeseries" as const;
  readonly path: string;
  private readonly threads: number | undefined;
  private readonly mutex = new Mutex();
  private opening: Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> | null = null;
  private closed = false;
  /** Real-time tables (spec 4.8) in the tenant schemas, sharing this connection and mutex. */
  readonly realtime = new DuckDbRealtimeTables(
    (fn) => this.exclusive(fn),
    (t) => this.namespaceOf(t),
    (t) => this.namespaceExists(t),
  );

  constructor(opts: DuckDbTimeSeriesOptions) {
    this.path = join(opts.dataDir, "timeseries.duckdb");
    this.threads = opts.threads;
    if (this.threads !== undefined && (!Number.isInteger(this.threads) || this.threads < 1)) {
      throw new Error(`DuckDbTimeSeries: threads must be a positive integer, got ${opts.threads}`);
    }
  }

  namespaceOf(t: TenantRef): string {
    const prefix = tenantPrefix(t.tenantId);
    // The prefix is spliced into SQL as an identifier: only a safe alphabet may pass.
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new AppError("bad_request", `invalid tenant id for a time-series namespace: ${t.tenantId}`);
    }
    return prefix;
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const ns = this.namespaceOf(t);
    await this.exclusive(async (conn) => {
      await inTransaction(conn, async () => {
        await conn.run(`CREATE SCHEMA IF NOT EXISTS "${ns}"`);
        // created_at is UTC wall time, as QuestDB's timestamps are.
        await conn.run(`CREATE TABLE IF NOT EXISTS "${ns}"."${MARKER}" (created_at TIMESTAMP NOT NULL)`);
        await conn.run(
          `INSERT INTO "${ns}"."${MARKER}" SELECT $1::TIMESTAMP WHERE NOT EXISTS (SELECT 1 FROM "${ns}"."${MARKER}")`,
          [utcTimestamp(new Date())],
        );
      });
    });
    if (!(await this.namespaceExists(t))) throw new AppError("internal", `time-series namespace ${ns} did not verify`);
    return ns;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const ns = this.namespaceOf(t);
    const rows = await this.exclusive((conn) =>
      readRows(
        conn,
        `SELECT count(*) AS n FROM duckdb_tables()
          WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2`,
        [ns, MARKER],
      ),
    );
    return Number(rows[0]?.n ?? 0) === 1;
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    await this.exclusive((conn) => conn.run(`DROP SCHEMA IF EXISTS "${ns}" CASCADE`));
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    if (!(await this.namespaceExists(t))) throw new AppError("not_found", `time-series namespace ${ns} does not exist`);
    // A fresh table name per run: concurrent smoke tests never share a probe.
    const table = `"${ns}"."_probe_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}"`;
    const ts = utcTimestamp(new Date());
    await this.exclusive(async (conn) => {
      await conn.run(`CREATE TABLE ${table} (ts TIMESTAMP NOT NULL, value DOUBLE NOT NULL)`);
      try {
        await conn.run(`INSERT INTO ${table} VALUES ($1::TIMESTAMP, $2)`, [ts, 42.5]);
        const rows = await readRows(conn, `SELECT value FROM ${table} WHERE ts = $1::TIMESTAMP`, [ts]);
        if (rows.length !== 1 || rows[0]?.value !== 42.5) {
          throw new AppError("internal", `time-series namespace ${ns}: probe row did not read back`);
        }
      } finally {
        await conn.run(`DROP TABLE IF EXISTS ${table}`);
      }
    });
  }

  async listNamespaces(): Promise<string[]> {
    const rows = await this.exclusive((conn) =>
      readRows(
        conn,
        `SELECT schema_name FROM duckdb_tables()
          WHERE database_name = current_database() AND table_name = $1 ORDER BY schema_name`,
        [MARKER],
      ),
    );
    return rows.map((r) => String(r.schema_name)).filter((s) => PREFIX_PATTERN.test(s));
  }

  /** Rows in the tenant's tables plus the number of tables, marker and metadata excluded (0 when fresh). */
  async countRecords(t: TenantRef): Promise<number> {
    const ns = this.namespaceOf(t);
    return this.exclusive(async (conn) => {
      const tables = await readRows(
        conn,
        `SELECT table_name FROM duckdb_tables()
          WHERE database_name = current_database() AND schema_name = $1 AND table_name NOT IN ($2, $3)`,
        [ns, MARKER, META_TABLE],
      );
      let n = tables.length;
      for (const { table_name } of tables) {
        const rows = await readRows(conn, `SELECT count(*) AS n FROM "${ns}"."${String(table_name)}"`);
        n += Number(rows[0]?.n ?? 0);
      }
      return n;
    });
  }

  async ping(): Promise<void> {
    await this.exclusive((conn) => conn.run("SELECT 1"));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Queue behind in-flight work so nothing runs on a closed connection.
    await this.mutex.run(async () => {
      const opened = await this.opening?.catch(() => null);
      opened?.conn.closeSync();
      opened?.instance.closeSync();
    });
  }

  private exclusive<T>(fn: (conn: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new AppError("unavailable", "time-series adapter is closed"));
    return this.mutex.run(async () => fn((await this.open()).conn));
  }

  private open(): Promise<{ instance: DuckDBInstance; conn: DuckDBConnection }> {
    this.opening ??= (async () => {
      mkdirSync(join(this.path, ".."), { recursive: true });
      const options: Record<string, string> = {};
      if (this.threads !== undefined) options.threads = String(this.threads);
      const instance = await DuckDBInstance.create(this.path, options);
      return { instance, conn: await instance.connect() };
    })();
    // A failed open (e.g. the file is locked by another process) is retried on the next call.
    this.opening.catch(() => {
      this.opening = null;
    });
    return this.opening;
  }
}

async function inTransaction(conn: DuckDBConnection, fn: () => Promise<void>): Promise<void> {
  await conn.run("BEGIN TRANSACTION");
  try {
    await fn();
    await conn.run("COMMIT");
  } catch (err) {
    await conn.run("ROLLBACK");
    throw err;
  }
}

async function readRows(
  conn: DuckDBConnection,
  sql: string,
  values?: DuckDBValue[],
): Promise<Record<string, DuckDBValue>[]> {
  const reader = await conn.runAndReadAll(sql, values);
  return reader.getRowObjects();
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC: what DuckDB casts to TIMESTAMP without time-zone guessing. */
function utcTimestamp(d: Date): string {
  return d.toISOString().replace("T", " ").replace("Z", "");
}
