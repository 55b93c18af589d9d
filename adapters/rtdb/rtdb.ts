/**
 * Real-time tables on the embedded DuckDB engine (spec 4.8, 2.9).
 *
 * A table lives in the tenant's schema beside a metadata table, `_rtdb_tables`, that
 * keeps what DuckDB cannot: the QuestDB column types, symbol capacity/cache/index, the
 * designated timestamp, the partition unit, WAL and the per-tenant table id. The
 * metadata endpoints answer from it, so they speak QuestDB's shapes on either engine.
 * SYMBOL INDEX is metadata only here: DuckDB's zone maps serve the filters.
 *
 * Statements run through the owning DuckDbTimeSeries' connection and mutex (`exclusive`).
 */
import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import { AppError } from "../../domain/errors.ts";
import {
  type ColumnType,
  jsonSafeValue,
  type PartitionBy,
  type PartitionInfo,
  partitionRange,
  type RangeRows,
  type RealtimeRangeReader,
  type RealtimeStorage,
  type RealtimeTable,
  type RealtimeTablesPort,
  type RealtimeTableUsage,
  type Row,
  refuseReservedTableName,
  rowWidth,
  type TableSpec,
  type TieredFile,
  type TimeRange,
} from "../../domain/rtdb/index.ts";
import type { TenantRef } from "../../domain/tenants/namespaces.ts";
import { appendRows } from "./duckdb-ingest.ts";

export const META_TABLE = "_rtdb_tables";

const DUCKDB_TYPE: Record<ColumnType, string> = {
  SYMBOL: "VARCHAR",
  DOUBLE: "DOUBLE",
  LONG: "BIGINT",
  INT: "INTEGER",
  SHORT: "SMALLINT",
  BYTE: "TINYINT",
  FLOAT: "FLOAT",
  BOOLEAN: "BOOLEAN",
  STRING: "VARCHAR",
  VARCHAR: "VARCHAR",
  TIMESTAMP: "TIMESTAMP",
  // QuestDB's DATE is a millisecond date-time, not a calendar day.
  DATE: "TIMESTAMP_MS",
  CHAR: "VARCHAR",
  UUID: "UUID",
};

type Exclusive = <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;

/** strftime patterns that print a truncated timestamp as QuestDB names the partition. */
const PARTITION_FORMAT: Record<PartitionBy, string> = { DAY: "%Y-%m-%d", HOUR: "%Y-%m-%dT%H", MONTH: "%Y-%m" };

export class DuckDbRealtimeTables implements RealtimeTablesPort, RealtimeRangeReader {
  constructor(
    private readonly exclusive: Exclusive,
    private readonly namespaceOf: (t: TenantRef) => string,
    private readonly namespaceExists: (t: TenantRef) => Promise<boolean>,
  ) {}

  ready(t: TenantRef): Promise<boolean> {
    return this.namespaceExists(t);
  }

  async create(t: TenantRef, spec: TableSpec, ddl: string): Promise<{ created: boolean; table: RealtimeTable }> {
    refuseReservedTableName(spec.name);
    const ns = this.namespaceOf(t);
    return this.exclusive(async (conn) => {
      await conn.run("BEGIN TRANSACTION");
      try {
        await conn.run(
          `CREATE TABLE IF NOT EXISTS "${ns}"."${META_TABLE}" (
             name_key VARCHAR PRIMARY KEY, id INTEGER NOT NULL, spec VARCHAR NOT NULL,
             ddl VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL)`,
        );
        const existing = await readMeta(conn, ns, spec.name);
        if (existing[0]) {
          if (!spec.ifNotExists) throw new AppError("conflict", `table '${existing[0].spec.name}' already exists`);
          await conn.run("COMMIT");
          return { created: false, table: existing[0] };
        }
        const cols = spec.columns.map(
          (c) => `"${c.name}" ${DUCKDB_TYPE[c.type]}${c.name === spec.designated ? " NOT NULL" : ""}`,
        );
        await conn.run(`CREATE TABLE "${ns}"."${spec.name}" (${cols.join(", ")})`);
        const idRows = await readRows(conn, `SELECT coalesce(max(id), 0) + 1 AS id FROM "${ns}"."${META_TABLE}"`);
        const id = Number(idRows[0]?.id ?? 1);
        await conn.run(`INSERT INTO "${ns}"."${META_TABLE}" VALUES ($1, $2, $3, $4, now()::TIMESTAMP)`, [
          spec.name.toLowerCase(),
          id,
          JSON.stringify(spec),
          ddl,
        ]);
        await conn.run("COMMIT");
        return { created: true, table: { spec, id, ddl } };
      } catch (err) {
        await conn.run("ROLLBACK");
        throw err;
      }
    });
  }

  list(t: TenantRef): Promise<RealtimeTable[]> {
    const ns = this.namespaceOf(t);
    return this.exclusive((conn) => readMeta(conn, ns, null));
  }

  async get(t: TenantRef, name: string): Promise<RealtimeTable | null> {
    const ns = this.namespaceOf(t);
    const rows = await this.exclusive((conn) => readMeta(conn, ns, name));
    return rows[0] ?? null;
  }

  async storage(t: TenantRef): Promise<RealtimeStorage> {
    const ns = this.namespaceOf(t);
    return this.exclusive(async (conn) => {
      const size = await readRows(
        conn,
        "SELECT block_size, total_blocks FROM pragma_database_size() WHERE database_name = current_database()",
      );
      const allocatedBytes = Number(size[0]?.block_size ?? 0) * Number(size[0]?.total_blocks ?? 0);
      const tables: RealtimeTableUsage[] = [];
      for (const { spec } of await readMeta(conn, ns, null)) tables.push(await usageOf(conn, ns, spec));
      return { allocatedBytes, tables };
    });
  }

  /** DuckDB's appender, one transaction per batch (adapters/rtdb/duckdb-ingest.ts). */
  ingest(t: TenantRef, table: string, rows: Row[] | AsyncIterable<Row[]>): Promise<{ rows: number }> {
    const ns = this.namespaceOf(t);
    return appendRows(this.exclusive, ns, (conn) => specOf(conn, ns, table), rows);
  }

  async partitions(t: TenantRef, table: string): Promise<PartitionInfo[]> {
    const ns = this.namespaceOf(t);
    return this.exclusive(async (conn) => {
      const spec = await specOf(conn, ns, table);
      const unit = spec.partitionBy;
      const rows = await readRows(
        conn,
        // Group on the truncated timestamp, format once per partition (not once per row).
        `SELECT strftime(b, '${PARTITION_FORMAT[unit]}') AS p, n
           FROM (SELECT date_trunc('${unit.toLowerCase()}', "${spec.designated}") AS b, count(*) AS n
                   FROM "${ns}"."${spec.name}" GROUP BY 1)
          ORDER BY b`,
      );
      return rows.map((r) => ({ partition: String(r.p), ...partitionRange(unit, String(r.p)), rows: Number(r.n) }));
    });
  }

  async exportPartition(t: TenantRef, table: string, partition: string, file: string): Promise<{ rows: number }> {
    const ns = this.namespaceOf(t);
    return this.exclusive(async (conn) => {
      const spec = await specOf(conn, ns, table);
      const where = rangeFilter(spec, partitionRange(spec.partitionBy, partition));
      const meta = `{cairn_table: ${literal(spec.name)}, cairn_partition: ${literal(partition)}, cairn_partition_by: '${spec.partitionBy}'}`;
      // COPY replaces a file already at `file` (a rerun after a crash writes the same name).
      const rows = await readRows(
        conn,
        `COPY (SELECT * FROM "${ns}"."${spec.name}" WHERE ${where} ORDER BY "${spec.designated}")
           TO ${literal(file)} (FORMAT parquet, COMPRESSION zstd, KV_METADATA ${meta})`,
      );
      return { rows: Number(rows[0]?.Count ?? 0) };
    });
  }

  async dropPartition(t: TenantRef, table: string, partition: string): Promise<void> {
    const ns = this.namespaceOf(t);
    await this.exclusive(async (conn) => {
      const spec = await specOf(conn, ns, table);
      // One statement, so atomic: a crash leaves the partition whole or gone.
      await conn.run(
        `DELETE FROM "${ns}"."${spec.name}" WHERE ${rangeFilter(spec, partitionRange(spec.partitionBy, partition))}`,
      );
    });
  }

  async readRange(
    t: TenantRef,
    table: string,
    range: TimeRange,
    files: TieredFile[],
    limit: number,
  ): Promise<RangeRows> {
    const ns = this.namespaceOf(t);
    // Under the mutex, so a drop cannot fall between deciding which files to read and reading.
    return this.exclusive(async (conn) => {
      const spec = await specOf(conn, ns, table);
      const where = rangeFilter(spec, range);
      const hot = new Set(
        (
          await readRows(
            conn,
            `SELECT strftime(b, '${PARTITION_FORMAT[spec.partitionBy]}') AS p
               FROM (SELECT DISTINCT date_trunc('${spec.partitionBy.toLowerCase()}', "${spec.designated}") AS b
                       FROM "${ns}"."${spec.name}" WHERE ${where})`,
          )
        ).map((r) => String(r.p)),
      );
      const paths = files.filter((f) => !f.onlyIfHotAbsent || !hot.has(f.partition)).map((f) => literal(f.path));
      const names = spec.columns.map((c) => `"${c.name}"`).join(", ");
      const outer = spec.columns.map((c) =>
        c.type === "TIMESTAMP" || c.type === "DATE"
          ? `strftime("${c.name}", '%Y-%m-%dT%H:%M:%S.%fZ') AS "${c.name}"`
          : c.type === "UUID"
            ? `"${c.name}"::VARCHAR AS "${c.name}"`
            : `"${c.name}"`,
      );
      const legs = [`SELECT ${names} FROM "${ns}"."${spec.name}" WHERE ${where}`];
      if (paths.length > 0) legs.push(`SELECT ${names} FROM read_parquet([${paths.join(", ")}]) WHERE ${where}`);
      const reader = await conn.runAndReadAll(
        `SELECT ${outer.join(", ")} FROM (${legs.join(" UNION ALL ")}) ORDER BY "${spec.designated}" LIMIT ${limit + 1}`,
      );
      const rows = reader.getRowsJS().map((row) => row.map(jsonSafeValue));
      if (rows.length > limit) {
        throw new AppError("payload_too_large", `More than ${limit} rows in the range: narrow it`);
      }
      return { columns: spec.columns.map((c) => c.name), rows };
    });
  }
}

/** The table's spec; not_found when the tenant has no such table. */
async function specOf(conn: DuckDBConnection, ns: string, table: string): Promise<TableSpec> {
  const found = (await readMeta(conn, ns, table))[0];
  if (!found) throw new AppError("not_found", `Table '${table}' does not exist`);
  return found.spec;
}

/** `designated` in [from, to); the bounds are ISO instants from partitionRange or a validated range. */
function rangeFilter(spec: TableSpec, range: TimeRange): string {
  const ts = (iso: string) => {
    const ms = Date.parse(iso);
    if (Number.isNaN(ms)) throw new AppError("bad_request", `'${iso}' is not an ISO 8601 instant`);
    return `TIMESTAMP '${new Date(ms).toISOString().replace("T", " ").replace("Z", "")}'`;
  };
  return `"${spec.designated}" >= ${ts(range.from)} AND "${spec.designated}" < ${ts(range.to)}`;
}

/** A SQL string literal. */
function literal(text: string): string {
  if (text.includes("\0")) throw new AppError("bad_request", "NUL in a string literal");
  return `'${text.replaceAll("'", "''")}'`;
}

async function usageOf(conn: DuckDBConnection, ns: string, spec: TableSpec): Promise<RealtimeTableUsage> {
  const width = rowWidth(spec);
  const variable = width.variable.map((c) => `coalesce(sum(strlen("${c}")), 0)`);
  const unit = spec.partitionBy.toLowerCase();
  const rows = await readRows(
    conn,
    `SELECT count(*) AS n, ${variable.length ? variable.join(" + ") : "0"} AS var_bytes,
            count(DISTINCT date_trunc('${unit}', "${spec.designated}")) AS partitions
       FROM "${ns}"."${spec.name}"`,
  );
  const n = Number(rows[0]?.n ?? 0);
  return {
    name: spec.name,
    rows: n,
    bytes: n * width.fixedBytes + Number(rows[0]?.var_bytes ?? 0),
    partitions: Number(rows[0]?.partitions ?? 0),
  };
}

/** The tenant's tables in id order (all, or the one named); none when nothing was ever created. */
async function readMeta(conn: DuckDBConnection, ns: string, name: string | null): Promise<RealtimeTable[]> {
  const present = await readRows(
    conn,
    `SELECT count(*) AS n FROM duckdb_tables()
      WHERE database_name = current_database() AND schema_name = $1 AND table_name = $2`,
    [ns, META_TABLE],
  );
  if (Number(present[0]?.n ?? 0) === 0) return [];
  const rows =
    name === null
      ? await readRows(conn, `SELECT id, spec, ddl FROM "${ns}"."${META_TABLE}" ORDER BY id`)
      : await readRows(conn, `SELECT id, spec, ddl FROM "${ns}"."${META_TABLE}" WHERE name_key = $1`, [
          name.toLowerCase(),
        ]);
  return rows.map((r) => ({ id: Number(r.id), spec: JSON.parse(String(r.spec)) as TableSpec, ddl: String(r.ddl) }));
}

async function readRows(
  conn: DuckDBConnection,
  sql: string,
  values?: DuckDBValue[],
): Promise<Record<string, DuckDBValue>[]> {
  return (await conn.runAndReadAll(sql, values)).getRowObjects();
}
