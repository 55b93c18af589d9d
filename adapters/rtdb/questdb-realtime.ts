/**
 * The realtime-tables port on QuestDB: a tenant's tables live under its namespace's table-name
 * prefix (questdb.ts); their metadata comes from QuestDB itself (questdb-catalog.ts), rows go
 * in over ILP (questdb-ingest.ts), and tiered Parquet files are read with DuckDB
 * (questdb-parquet.ts).
 *
 * Writes to WAL tables become visible when QuestDB applies the WAL: ingest and
 * dropPartition wait for that (wal_tables() writerTxn reaching sequencerTxn), so a read
 * right after sees the change, as on the embedded engine.
 */
import { AppError } from "../../domain/errors.ts";
import {
  microsToIso,
  type PartitionInfo,
  partitionOf,
  partitionRange,
  type RangeRows,
  type RealtimeRangeReader,
  type RealtimeStorage,
  type RealtimeTable,
  type RealtimeTablesPort,
  type RealtimeTableUsage,
  type Row,
  refuseReservedTableName,
  type TableSpec,
  type TieredFile,
  type TimeRange,
  toEpochMicros,
} from "../../domain/rtdb/index.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import {
  describeTable,
  partitionUnit,
  type QdbTable,
  questDbDdl,
  STRIDE,
  tableUsage,
  tenantTables,
} from "./questdb-catalog.ts";
import { QuestDbError, type QuestDbHttp, sqlIdent, sqlString } from "./questdb-http.ts";
import { ingestIlp } from "./questdb-ingest.ts";
import { QuestDbParquetReader } from "./questdb-parquet.ts";

/** What the tables need of the namespace port (QuestDbTimeSeries): its client and the tenant's prefix. */
export interface QuestDbNamespaces {
  readonly http: QuestDbHttp;
  namespaceExists(t: TenantRef): Promise<boolean>;
  /** The QuestDB name of the tenant's table `name`. */
  qualify(t: TenantRef, name: string): string;
  /** Every QuestDB table of the tenant starts with this. */
  tablePrefix(t: TenantRef): string;
}

export class QuestDbRealtimeTables implements RealtimeTablesPort, RealtimeRangeReader {
  private readonly parquet = new QuestDbParquetReader();

  constructor(
    private readonly ts: QuestDbNamespaces,
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
    const committed = await ingestIlp(this.http, tbl.full, spec, rows);
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
      this.parquet.counts(
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
      const tiered = await this.parquet.readRange(spec, paths, from, to, limit);
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
    await this.parquet.close();
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
  private tenantTables(t: TenantRef): Promise<QdbTable[]> {
    return tenantTables(this.http, this.ts.tablePrefix(t));
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

  private describe(tbl: QdbTable): Promise<RealtimeTable> {
    return describeTable(this.http, tbl);
  }

  private usageOf(tbl: QdbTable, spec: TableSpec): Promise<RealtimeTableUsage> {
    return tableUsage(this.http, tbl, spec);
  }
}

/** An ISO 8601 instant in QuestDB's literal form; bad_request otherwise. */
function isoInstant(text: string): string {
  try {
    return microsToIso(toEpochMicros(text));
  } catch {
    throw new AppError("bad_request", `'${text}' is not an ISO 8601 instant`);
  }
}
