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
 * QuestDB itself keeps the metadata: tables() (partitioning, WAL, QuestDB's table id),
 * table_columns() (types, symbol capacity/cache/index, designated column) and
 * table_storage() (disk size). A table's per-tenant id is its rank among the tenant's tables
 * in QuestDB id order (so 1, 2, 3... as on the embedded engine); its DDL is rebuilt from the
 * columns QuestDB reports, so it is the table as it really is.
 *
 * Writes to WAL tables become visible when QuestDB applies the WAL: ingest and
 * dropPartition wait for that (wal_tables() writerTxn reaching sequencerTxn), so a read
 * right after sees the change, as on the embedded engine.
 */
import { DuckDBInstance } from "@duckdb/node-api";
import { Sender } from "@questdb/nodejs-client";
import { AppError } from "../../domain/errors.ts";
import { type NamespacePort, type TenantRef, tenantPrefix } from "../../domain/namespaces.ts";
import {
  batchesOf,
  type CanonicalValue,
  COLUMN_TYPES,
  type ColumnSpec,
  type ColumnType,
  jsonSafeValue,
  microsToIso,
  normaliseDdl,
  PARTITION_UNITS,
  type PartitionBy,
  type PartitionInfo,
  partitionOf,
  partitionRange,
  type RangeRows,
  RESERVED_TABLE_NAME,
  type RealtimeRangeReader,
  type RealtimeStorage,
  type RealtimeTable,
  type RealtimeTablesPort,
  type RealtimeTableUsage,
  type Row,
  RowConverter,
  refuseReservedTableName,
  rowWidth,
  type TableSpec,
  type TieredFile,
  type TimeRange,
  toEpochMicros,
} from "../../domain/timeseries/index.ts";
import { Mutex } from "../sql/index.ts";
import { QuestDbError, QuestDbHttp, sqlIdent, sqlString } from "./questdb-http.ts";

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

/** SAMPLE BY stride per partition unit (calendar-aligned, UTC). */
const STRIDE: Record<PartitionBy, string> = { DAY: "1d", HOUR: "1h", MONTH: "1M" };

/** One of a tenant's tables as tables() reports it. */
interface QdbTable {
  /** The QuestDB table name (with the tenant prefix). */
  full: string;
  /** The tenant's name for it. */
  name: string;
  qdbId: number;
  /** Per-tenant id: rank in QuestDB id order, from 1. */
  id: number;
  partitionBy: string;
  walEnabled: boolean;
  designated: string;
}

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

export class QuestDbRealtimeTables implements RealtimeTablesPort, RealtimeRangeReader {
  private duck: Promise<DuckDBInstance> | null = null;
  /** DuckDB reads exported Parquet files back (row counts); one query at a time. */
  private readonly duckMutex = new Mutex();

  constructor(
    private readonly ts: QuestDbTimeSeries,
    private readonly applyTimeoutMs: number,
  ) {}

  private get http(): QuestDbHttp {
    return this.ts.http;
  }

  ready(t: TenantRef): Promise<boolean> {
    return this.ts.namespaceExists(t);
  }

  async create(t: TenantRef, spec: TableSpec, ddl: string): Promise<{ created: boolean; table: RealtimeTable }> {
    refuseReservedTableName(spec.name);
    const existing = async () => {
      const found = await this.find(t, spec.name);
      if (!found) return null;
      if (!spec.ifNotExists) throw new AppError("conflict", `table '${found.name}' already exists`);
      return { created: false, table: await this.describe(found) };
    };
    const before = await existing();
    if (before) return before;
    try {
      await this.http.exec(questDbDdl(this.ts.qualify(t, spec.name), spec));
    } catch (err) {
      if (err instanceof QuestDbError && /already exists/i.test(err.message)) {
        const raced = await existing();
        if (raced) return raced;
      }
      if (err instanceof QuestDbError) throw new AppError("internal", `QuestDB refused the table: ${err.message}`);
      throw err;
    }
    const created = await this.find(t, spec.name);
    if (!created) throw new AppError("internal", `table '${spec.name}' did not appear after CREATE TABLE`);
    const table = await this.describe(created);
    if (table.ddl !== ddl) {
      throw new AppError("internal", `table '${spec.name}' was created as '${table.ddl}', not '${ddl}'`);
    }
    return { created: true, table };
  }

  async list(t: TenantRef): Promise<RealtimeTable[]> {
    const tables = await this.tenantTables(t);
    // table_columns() per table, at most 8 requests in flight.
    const out: RealtimeTable[] = [];
    for (let i = 0; i < tables.length; i += 8) {
      out.push(...(await Promise.all(tables.slice(i, i + 8).map((tbl) => this.describe(tbl)))));
    }
    return out;
  }

  async get(t: TenantRef, name: string): Promise<RealtimeTable | null> {
    const found = await this.find(t, name);
    return found ? this.describe(found) : null;
  }

  async storage(t: TenantRef): Promise<RealtimeStorage> {
    const tables = await this.tenantTables(t);
    const mine = new Set(tables.map((x) => x.full));
    const disk = await this.http.rows("SELECT tableName, diskSize FROM table_storage()");
    const allocatedBytes = disk
      .filter((r) => mine.has(String(r.tableName)))
      .reduce((sum, r) => sum + Number(r.diskSize ?? 0), 0);
    const usage: RealtimeTableUsage[] = [];
    for (const tbl of tables) usage.push(await this.usageOf(tbl, (await this.describe(tbl)).spec));
    return { allocatedBytes, tables: usage };
  }

  async ingest(t: TenantRef, table: string, rows: Row[] | AsyncIterable<Row[]>): Promise<{ rows: number }> {
    const tbl = await this.require(t, table);
    const { spec } = await this.describe(tbl);
    const converter = new RowConverter(spec);
    const cols = spec.columns.map((c, i) => ({ name: c.name, type: c.type, i }));
    // ILP wants symbols before the other columns; the designated timestamp goes last (at()).
    const designated = converter.designatedIndex;
    const order = [
      ...cols.filter((c) => c.type === "SYMBOL"),
      ...cols.filter((c) => c.type !== "SYMBOL" && c.i !== designated),
    ].map((c) => ({ name: c.name, i: c.i, kind: ILP_KIND[c.type] }));
    // One value array for every row: each row is written to the buffer before the next.
    const values: CanonicalValue[] = new Array(cols.length).fill(null);
    const sender = await Sender.fromConfig(this.http.ilpConfig({ auto_flush: "off", request_timeout: 60_000 }));
    let committed = 0;
    let failed = true;
    try {
      for await (const batch of batchesOf(rows)) {
        for (const row of batch) {
          converter.convertInto(row, values);
          sender.table(tbl.full);
          // A switch with direct calls, not a table of closures: this loop is the ingest's hot path.
          for (let k = 0; k < order.length; k++) {
            const c = order[k]!;
            const v = values[c.i];
            if (v === null) continue;
            switch (c.kind) {
              case IlpKind.Symbol:
                sender.symbol(c.name, v);
                break;
              case IlpKind.Float:
                sender.floatColumn(c.name, v as number);
                break;
              case IlpKind.Int:
                sender.intColumn(c.name, v as number);
                break;
              case IlpKind.String:
                sender.stringColumn(c.name, v as string);
                break;
              case IlpKind.Boolean:
                sender.booleanColumn(c.name, v as boolean);
                break;
              default:
                sender.timestampColumn(c.name, v as bigint, "us");
            }
          }
          await sender.at(values[designated] as bigint, "us");
        }
        // One ILP request per batch: QuestDB commits it as one transaction.
        await sender.flush().catch((err: Error) => {
          // `HTTP request failed, statusCode=4xx, error={...}` is QuestDB refusing the rows.
          throw new AppError(
            /statusCode=4\d\d\b/.test(err.message) ? "bad_request" : "unavailable",
            `QuestDB refused rows ${committed + 1}-${committed + batch.length} of '${spec.name}' ` +
              `(${committed} committed before): ${err.message}`,
          );
        });
        committed += batch.length;
      }
      failed = false;
    } finally {
      // A refused row leaves a half-built batch in the buffer: discard it, never send it.
      if (failed) sender.reset();
      await sender.close().catch(() => {});
    }
    if (committed > 0) await this.awaitApplied(tbl.full);
    return { rows: committed };
  }

  async partitions(t: TenantRef, table: string): Promise<PartitionInfo[]> {
    const tbl = await this.require(t, table);
    const unit = partitionUnit(tbl);
    // Calendar-aligned UTC buckets of the partition unit: one row per non-empty partition.
    const { dataset } = await this.http.exec(
      `SELECT ${sqlIdent(tbl.designated)}, count() FROM ${sqlIdent(tbl.full)} SAMPLE BY ${STRIDE[unit]} ALIGN TO CALENDAR`,
    );
    return dataset.map(([at, n]) => {
      const partition = partitionOf(unit, new Date(String(at)));
      return { partition, ...partitionRange(unit, partition), rows: Number(n) };
    });
  }

  /**
   * QuestDB writes the Parquet itself (/exp?fmt=parquet). 9.3.4 writes VARCHAR columns that no
   * reader can decode (every value reads as null) and CHAR as a UTF-16 code unit, so both are
   * exported as STRING. The file is then read back with DuckDB and its row count and the
   * non-null count of every column that can hold null in QuestDB are compared with QuestDB's.
   */
  async exportPartition(t: TenantRef, table: string, partition: string, file: string): Promise<{ rows: number }> {
    const tbl = await this.require(t, table);
    const { spec } = await this.describe(tbl);
    const range = partitionRange(spec.partitionBy, partition);
    const ts = sqlIdent(spec.designated);
    const where = `${ts} >= ${sqlString(range.from)} AND ${ts} < ${sqlString(range.to)}`;
    const select = spec.columns.map((c) =>
      c.type === "VARCHAR" || c.type === "CHAR"
        ? `${sqlIdent(c.name)}::STRING AS ${sqlIdent(c.name)}`
        : sqlIdent(c.name),
    );
    await this.http.exportParquet(`SELECT ${select.join(", ")} FROM ${sqlIdent(tbl.full)} WHERE ${where}`, file);
    // BOOLEAN, BYTE and SHORT have no null in QuestDB: count() of them is not defined.
    const nullable = spec.columns.filter((c) => !["BOOLEAN", "BYTE", "SHORT"].includes(c.type));
    const counts = nullable.map((c) => `count(${sqlIdent(c.name)})`);
    const [hot, written] = await Promise.all([
      this.http.exec(`SELECT ${["count()", ...counts].join(", ")} FROM ${sqlIdent(tbl.full)} WHERE ${where}`),
      this.parquetCounts(
        file,
        nullable.map((c) => c.name),
      ),
    ]);
    const expected = (hot.dataset[0] ?? []).map(Number);
    const mismatch = written.findIndex((n, i) => n !== expected[i]);
    if (mismatch >= 0) {
      const what = mismatch === 0 ? "rows" : `values of column '${nullable[mismatch - 1]!.name}'`;
      throw new AppError(
        "internal",
        `export of ${spec.name} partition ${partition}: the file holds ${written[mismatch]} ${what}, QuestDB ${expected[mismatch]}`,
      );
    }
    return { rows: written[0] ?? 0 };
  }

  /**
   * Rows in [from, to): the hot rows from QuestDB (one query, so one snapshot) and the tiered
   * files read by DuckDB, merged in timestamp order. A file marked onlyIfHotAbsent is read only
   * when the hot rows hold nothing of its partition, so no row is returned twice. Values as the
   * embedded engine returns them: timestamps ISO with microseconds, UUIDs as text.
   */
  async readRange(
    t: TenantRef,
    table: string,
    range: TimeRange,
    files: TieredFile[],
    limit: number,
  ): Promise<RangeRows> {
    const tbl = await this.require(t, table);
    const { spec } = await this.describe(tbl);
    const [from, to] = [isoInstant(range.from), isoInstant(range.to)];
    const ts = sqlIdent(spec.designated);
    const designated = spec.columns.findIndex((c) => c.name === spec.designated);
    const hot = await this.http.exec(
      `SELECT ${spec.columns.map((c) => sqlIdent(c.name)).join(", ")} FROM ${sqlIdent(tbl.full)}
        WHERE ${ts} >= ${sqlString(from)} AND ${ts} < ${sqlString(to)} ORDER BY ${ts} LIMIT ${limit + 1}`,
    );
    const tooMany = () => new AppError("payload_too_large", `More than ${limit} rows in the range: narrow it`);
    if (hot.dataset.length > limit) throw tooMany();
    // QuestDB prints DATE with milliseconds; the embedded engine and the files use microseconds.
    const dates = spec.columns.flatMap((c, i) => (c.type === "DATE" ? [i] : []));
    const rows = hot.dataset.map((row) => {
      for (const i of dates) if (typeof row[i] === "string") row[i] = microsToIso(toEpochMicros(row[i] as string));
      return row;
    });
    const hotPartitions = new Set(rows.map((r) => partitionOf(spec.partitionBy, new Date(String(r[designated])))));
    const paths = files.filter((f) => !f.onlyIfHotAbsent || !hotPartitions.has(f.partition)).map((f) => f.path);
    if (paths.length > 0) {
      const tiered = await this.readParquetRange(spec, paths, from, to, limit);
      rows.push(...tiered);
      // ISO instants of one format sort as text; the sort is stable, so ties keep hot rows first.
      rows.sort((a, b) =>
        String(a[designated]) < String(b[designated]) ? -1 : String(a[designated]) > String(b[designated]) ? 1 : 0,
      );
      if (rows.length > limit) throw tooMany();
    }
    return { columns: spec.columns.map((c) => c.name), rows };
  }

  async dropPartition(t: TenantRef, table: string, partition: string): Promise<void> {
    const tbl = await this.require(t, table);
    partitionRange(partitionUnit(tbl), partition); // bad_request for a malformed name
    // Dropping an absent partition is a no-op in QuestDB, so a rerun after a crash is safe.
    await this.http.exec(`ALTER TABLE ${sqlIdent(tbl.full)} DROP PARTITION LIST ${sqlString(partition)}`);
    await this.awaitApplied(tbl.full);
  }

  async close(): Promise<void> {
    const opened = this.duck;
    this.duck = null;
    await this.duckMutex.run(async () => {
      (await opened?.catch(() => null))?.closeSync();
    });
  }

  /** Waits until QuestDB has applied every committed WAL transaction of the table. */
  async awaitApplied(full: string): Promise<void> {
    const deadline = Date.now() + this.applyTimeoutMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      const rows = await this.http.rows(
        `SELECT suspended, writerTxn, sequencerTxn, errorMessage FROM wal_tables() WHERE name = ${sqlString(full)}`,
      );
      const r = rows[0];
      if (!r) return; // not a WAL table (or dropped meanwhile): nothing to wait for
      if (r.suspended === true) {
        throw new AppError("internal", `QuestDB suspended table '${full}': ${String(r.errorMessage ?? "")}`);
      }
      if (Number(r.writerTxn) >= Number(r.sequencerTxn)) return;
      if (Date.now() > deadline) {
        throw new AppError("unavailable", `QuestDB has not applied the writes to '${full}' yet; try reading later`);
      }
      await Bun.sleep(delay);
    }
  }

  /** The tenant's tables in QuestDB id order, reserved names excluded. */
  private async tenantTables(t: TenantRef): Promise<QdbTable[]> {
    const prefix = this.ts.tablePrefix(t);
    const rows = await this.http.rows(
      `SELECT id, table_name, designatedTimestamp, partitionBy, walEnabled FROM tables()
        WHERE table_name ~ ${sqlString(`^${prefix}`)} ORDER BY id`,
    );
    const out: QdbTable[] = [];
    for (const r of rows) {
      const full = String(r.table_name);
      if (!full.startsWith(prefix)) continue;
      const name = full.slice(prefix.length);
      if (RESERVED_TABLE_NAME.test(name)) continue;
      out.push({
        full,
        name,
        qdbId: Number(r.id),
        id: out.length + 1,
        partitionBy: String(r.partitionBy),
        walEnabled: r.walEnabled === true,
        designated: String(r.designatedTimestamp ?? ""),
      });
    }
    return out;
  }

  private async find(t: TenantRef, name: string): Promise<QdbTable | null> {
    const key = name.toLowerCase();
    return (await this.tenantTables(t)).find((x) => x.name.toLowerCase() === key) ?? null;
  }

  private async require(t: TenantRef, name: string): Promise<QdbTable> {
    const found = await this.find(t, name);
    if (!found) throw new AppError("not_found", `Table '${name}' does not exist`);
    return found;
  }

  /** The table's spec as QuestDB reports it, its per-tenant id and its normalised DDL. */
  private async describe(tbl: QdbTable): Promise<RealtimeTable> {
    const cols = await this.http.rows(`table_columns(${sqlString(tbl.full)})`);
    const columns: ColumnSpec[] = cols.map((c) => {
      const type = String(c.type) as ColumnType;
      if (!(COLUMN_TYPES as readonly string[]).includes(type)) {
        throw new AppError("internal", `table '${tbl.name}': column '${String(c.column)}' has type ${type}`);
      }
      const col: ColumnSpec = { name: String(c.column), type };
      if (type === "SYMBOL") {
        col.symbol = {
          capacity: Number(c.symbolCapacity),
          cached: c.symbolCached === true,
          index: c.indexed === true ? { capacity: Number(c.indexBlockCapacity) } : null,
        };
      }
      return col;
    });
    const designated = cols.find((c) => c.designated === true);
    const spec: TableSpec = {
      name: tbl.name,
      ifNotExists: false,
      columns,
      designated: designated ? String(designated.column) : tbl.designated,
      partitionBy: partitionUnit(tbl),
      wal: true,
    };
    return { spec, id: tbl.id, ddl: normaliseDdl(spec) };
  }

  private async usageOf(tbl: QdbTable, spec: TableSpec): Promise<RealtimeTableUsage> {
    const width = rowWidth(spec);
    const variable = width.variable.map(
      (c) => `coalesce(sum(CASE WHEN ${sqlIdent(c)} IS NULL THEN 0 ELSE length_bytes(${sqlIdent(c)}::varchar) END), 0)`,
    );
    const rows = await this.http.rows(
      `SELECT count() AS n, ${variable.length ? variable.join(" + ") : "0"} AS var_bytes FROM ${sqlIdent(tbl.full)}`,
    );
    const n = Number(rows[0]?.n ?? 0);
    const { dataset } = await this.http.exec(
      `SELECT count() FROM (SELECT ${sqlIdent(spec.designated)}, count() FROM ${sqlIdent(tbl.full)}
         SAMPLE BY ${STRIDE[spec.partitionBy]} ALIGN TO CALENDAR)`,
    );
    return {
      name: spec.name,
      rows: n,
      bytes: n * width.fixedBytes + Number(rows[0]?.var_bytes ?? 0),
      partitions: Number(dataset[0]?.[0] ?? 0),
    };
  }

  /** Rows of Parquet files in [from, to), formatted like the embedded engine's range reads. */
  private readParquetRange(
    spec: TableSpec,
    paths: string[],
    from: string,
    to: string,
    limit: number,
  ): Promise<unknown[][]> {
    this.duck ??= DuckDBInstance.create(":memory:", { threads: "1" });
    const opening = this.duck;
    return this.duckMutex.run(async () => {
      const conn = await (await opening).connect();
      try {
        // QuestDB's files hold UTC-adjusted timestamps: format them in UTC whatever the host's zone.
        await conn.run("SET TimeZone = 'UTC'");
        const cols = spec.columns.map((c) => {
          const col = sqlIdent(c.name);
          if (c.type === "TIMESTAMP" || c.type === "DATE") return `strftime(${col}, '%Y-%m-%dT%H:%M:%S.%fZ') AS ${col}`;
          if (c.type === "UUID") return `${col}::VARCHAR AS ${col}`;
          return col;
        });
        const ts = sqlIdent(spec.designated);
        const reader = await conn.runAndReadAll(
          `SELECT ${cols.join(", ")} FROM read_parquet([${paths.map(sqlString).join(", ")}])
            WHERE ${ts} >= ${sqlString(from)}::TIMESTAMPTZ AND ${ts} < ${sqlString(to)}::TIMESTAMPTZ
            ORDER BY ${ts} LIMIT ${limit + 1}`,
        );
        return reader.getRowsJS().map((row) => row.map(jsonSafeValue));
      } finally {
        conn.closeSync();
      }
    });
  }

  /** The file's row count, then the non-null count of each named column. */
  private parquetCounts(file: string, columns: string[]): Promise<number[]> {
    this.duck ??= DuckDBInstance.create(":memory:", { threads: "1" });
    const opening = this.duck;
    return this.duckMutex.run(async () => {
      const conn = await (await opening).connect();
      try {
        const counts = ["count(*)", ...columns.map((c) => `count(${sqlIdent(c)})`)];
        const reader = await conn.runAndReadAll(`SELECT ${counts.join(", ")} FROM read_parquet(${sqlString(file)})`);
        return (reader.getRows()[0] ?? []).map(Number);
      } finally {
        conn.closeSync();
      }
    });
  }
}

/** How each QuestDB type goes over ILP (strings cover CHAR and UUID; timestamps cover DATE). */
const IlpKind = { Symbol: 0, Float: 1, Int: 2, String: 3, Boolean: 4, Timestamp: 5 } as const;

const ILP_KIND: Record<ColumnType, number> = {
  SYMBOL: IlpKind.Symbol,
  STRING: IlpKind.String,
  VARCHAR: IlpKind.String,
  CHAR: IlpKind.String,
  UUID: IlpKind.String,
  DOUBLE: IlpKind.Float,
  FLOAT: IlpKind.Float,
  LONG: IlpKind.Int,
  INT: IlpKind.Int,
  SHORT: IlpKind.Int,
  BYTE: IlpKind.Int,
  BOOLEAN: IlpKind.Boolean,
  TIMESTAMP: IlpKind.Timestamp,
  DATE: IlpKind.Timestamp,
};

/** An ISO 8601 instant in QuestDB's literal form; bad_request otherwise. */
function isoInstant(text: string): string {
  try {
    return microsToIso(toEpochMicros(text));
  } catch {
    throw new AppError("bad_request", `'${text}' is not an ISO 8601 instant`);
  }
}

function partitionUnit(tbl: QdbTable): PartitionBy {
  if (!(PARTITION_UNITS as readonly string[]).includes(tbl.partitionBy)) {
    throw new AppError("internal", `table '${tbl.name}' is partitioned by ${tbl.partitionBy}`);
  }
  return tbl.partitionBy as PartitionBy;
}

/** The statement QuestDB runs: the normalised DDL with the prefixed name and quoted identifiers. */
export function questDbDdl(full: string, spec: TableSpec): string {
  const cols = spec.columns.map((c) => {
    if (!c.symbol) return `${sqlIdent(c.name)} ${c.type}`;
    const s = c.symbol;
    const index = s.index ? ` INDEX CAPACITY ${s.index.capacity}` : "";
    return `${sqlIdent(c.name)} SYMBOL CAPACITY ${s.capacity} ${s.cached ? "CACHE" : "NOCACHE"}${index}`;
  });
  return (
    `CREATE TABLE ${sqlIdent(full)} (${cols.join(", ")}) TIMESTAMP(${sqlIdent(spec.designated)}) ` +
    `PARTITION BY ${spec.partitionBy} WAL`
  );
}
