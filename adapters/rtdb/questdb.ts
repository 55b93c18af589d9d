/**
 * The cluster profile's time-series engine: QuestDB over its HTTP API (docs/rtdb.md).
 *
 * QuestDB has no schemas, so a tenant's namespace is a table-name prefix: the tenant's
 * table `trades` is the QuestDB table `t_<32 hex>_trades`, and the namespace itself is the
 * marker table `t_<32 hex>__namespace`. The tenant part is hex only, so the first `_` after
 * it ends the prefix: no tenant's prefix is a prefix of another's, and every query the
 * adapter makes for a tenant filters on its own prefix. An optional installation `scope`
 * (`[a-z][a-z0-9]{0,15}`) goes in front of everything, so test runs can share one server.
 *
 * This file is the namespace port; the tenant's tables are QuestDbRealtimeTables
 * (questdb-realtime.ts), whose metadata QuestDB itself keeps (questdb-catalog.ts).
 */
import { AppError } from "../../domain/errors.ts";
import { RESERVED_TABLE_NAME } from "../../domain/rtdb/index.ts";
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/tenants/namespaces.ts";
import { QuestDbError, QuestDbHttp, sqlIdent, sqlString } from "./questdb-http.ts";
import { QuestDbRealtimeTables } from "./questdb-realtime.ts";

export { questDbDdl } from "./questdb-catalog.ts";
export { QuestDbRealtimeTables } from "./questdb-realtime.ts";

export interface QuestDbTimeSeriesOptions {
  /** QuestDB's HTTP endpoint, e.g. http://127.0.0.1:9000 (credentials in the URL for basic auth). */
  url: string;
  /** Installation scope prefixed to every table (tests); letters and digits, starting with a letter. */
  scope?: string;
  /** Longest wait for QuestDB to apply a WAL write before ingest/dropPartition give up; default 120 s. */
  applyTimeoutMs?: number;
}

const PREFIX_PATTERN = /^t_[0-9a-z]{1,64}$/;
const SCOPE_PATTERN = /^[a-z][a-z0-9]{0,15}$/;
const MARKER = "_namespace";

export class QuestDbTimeSeries implements NamespacePort {
  readonly engine = "timeseries" as const;
  readonly http: QuestDbHttp;
  readonly realtime: QuestDbRealtimeTables;
  private readonly scope: string;
  /** One ensure at a time per tenant in this process (the marker row is written once). */
  private readonly ensuring = new Map<string, Promise<void>>();
  private closed = false;

  constructor(opts: QuestDbTimeSeriesOptions) {
    if (opts.scope !== undefined && !SCOPE_PATTERN.test(opts.scope)) {
      throw new Error(`QuestDbTimeSeries: scope must match ${SCOPE_PATTERN}, got '${opts.scope}'`);
    }
    this.scope = opts.scope ? `${opts.scope}_` : "";
    this.http = new QuestDbHttp({ url: opts.url });
    this.realtime = new QuestDbRealtimeTables(this, opts.applyTimeoutMs ?? 120_000);
  }

  namespaceOf(t: TenantRef): string {
    const prefix = tenantPrefix(t.tenantId);
    // The prefix is spliced into SQL and table names: only a safe alphabet may pass.
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new AppError("bad_request", `invalid tenant id for a time-series namespace: ${t.tenantId}`);
    }
    return prefix;
  }

  /** The QuestDB name of the tenant's table `name`. */
  qualify(t: TenantRef, name: string): string {
    return `${this.tablePrefix(t)}${name}`;
  }

  /** Every QuestDB table of the tenant starts with this. */
  tablePrefix(t: TenantRef): string {
    return `${this.scope}${this.namespaceOf(t)}_`;
  }

  async ensureNamespace(t: TenantRef): Promise<string> {
    const ns = this.namespaceOf(t);
    const key = ns;
    // Chained behind any ensure of the same tenant in this process.
    const previous = this.ensuring.get(key) ?? Promise.resolve();
    const work = previous
      .catch(() => {})
      .then(async () => {
        const marker = sqlIdent(this.qualify(t, MARKER));
        try {
          await this.http.exec(`CREATE TABLE IF NOT EXISTS ${marker} (created_at TIMESTAMP)`);
        } catch (err) {
          // Another instance created it between QuestDB's check and its create.
          if (!(err instanceof QuestDbError && /already exists/i.test(err.message))) throw err;
        }
        // A table without a designated timestamp is not WAL: the row is visible at once.
        const rows = await this.http.rows(`SELECT count() AS n FROM ${marker}`);
        if (Number(rows[0]?.n ?? 0) === 0) await this.http.exec(`INSERT INTO ${marker} VALUES (now())`);
      });
    this.ensuring.set(key, work);
    try {
      await work;
    } finally {
      if (this.ensuring.get(key) === work) this.ensuring.delete(key);
    }
    if (!(await this.namespaceExists(t))) throw new AppError("internal", `time-series namespace ${ns} did not verify`);
    return ns;
  }

  async namespaceExists(t: TenantRef): Promise<boolean> {
    const rows = await this.http.rows(
      `SELECT count() AS n FROM tables() WHERE table_name = ${sqlString(this.qualify(t, MARKER))}`,
    );
    return Number(rows[0]?.n ?? 0) === 1;
  }

  async dropNamespace(t: TenantRef): Promise<void> {
    const marker = this.qualify(t, MARKER);
    const names = (await this.tenantTableNames(t)).filter((n) => n !== marker);
    // The tables first, the marker last: a failed drop leaves a namespace a retry can finish.
    for (const name of [...names, marker]) await this.http.exec(`DROP TABLE IF EXISTS ${sqlIdent(name)}`);
  }

  async smokeTest(t: TenantRef): Promise<void> {
    const ns = this.namespaceOf(t);
    if (!(await this.namespaceExists(t))) throw new AppError("not_found", `time-series namespace ${ns} does not exist`);
    // A fresh probe per run; BYPASS WAL makes the insert visible at once.
    const table = sqlIdent(this.qualify(t, `_probe_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`));
    const ts = new Date().toISOString();
    await this.http.exec(
      `CREATE TABLE ${table} (ts TIMESTAMP, value DOUBLE) TIMESTAMP(ts) PARTITION BY DAY BYPASS WAL`,
    );
    try {
      await this.http.exec(`INSERT INTO ${table} VALUES (${sqlString(ts)}, 42.5)`);
      const rows = await this.http.rows(`SELECT value FROM ${table} WHERE ts = ${sqlString(ts)}`);
      if (rows.length !== 1 || rows[0]?.value !== 42.5) {
        throw new AppError("internal", `time-series namespace ${ns}: probe row did not read back`);
      }
    } finally {
      await this.http.exec(`DROP TABLE IF EXISTS ${table}`);
    }
  }

  async listNamespaces(): Promise<string[]> {
    const pattern = new RegExp(`^${this.scope}(t_[0-9a-z]{1,64})_${MARKER}$`);
    const rows = await this.http.rows(
      `SELECT table_name FROM tables() WHERE table_name ~ ${sqlString(`^${this.scope}t_[0-9a-z]+__namespace$`)}`,
    );
    return rows
      .map((r) => pattern.exec(String(r.table_name))?.[1])
      .filter((s): s is string => s !== undefined)
      .sort();
  }

  /** Rows in the tenant's tables plus the number of tables, marker and probes excluded (0 when fresh). */
  async countRecords(t: TenantRef): Promise<number> {
    const prefix = this.tablePrefix(t);
    const tables = (await this.tenantTableNames(t)).filter((n) => !RESERVED_TABLE_NAME.test(n.slice(prefix.length)));
    let n = tables.length;
    for (const name of tables) {
      const rows = await this.http.rows(`SELECT count() AS n FROM ${sqlIdent(name)}`);
      n += Number(rows[0]?.n ?? 0);
    }
    return n;
  }

  async ping(): Promise<void> {
    await this.http.exec("SELECT 1");
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.http.close();
    await this.realtime.close();
  }

  /** Every QuestDB table name under the tenant's prefix, marker and probes included. */
  async tenantTableNames(t: TenantRef): Promise<string[]> {
    const prefix = this.tablePrefix(t);
    const rows = await this.http.rows(`SELECT table_name FROM tables() WHERE table_name ~ ${sqlString(`^${prefix}`)}`);
    // The regex already filters; the check here keeps the isolation independent of it.
    return rows.map((r) => String(r.table_name)).filter((n) => n.startsWith(prefix));
  }
}
