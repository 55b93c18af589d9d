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
import type { TenantRef } from "../../domain/namespaces.ts";
import type {
  ColumnType,
  RealtimeStorage,
  RealtimeTable,
  RealtimeTablesPort,
  RealtimeTableUsage,
  TableSpec,
} from "../../domain/timeseries/index.ts";

export const META_TABLE = "_rtdb_tables";

/** Names the adapter uses itself inside a tenant schema. */
const RESERVED = /^(_namespace$|_rtdb|_probe_)/i;

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

/** Bytes per value in QuestDB's column files (SYMBOL stores an int key); null = variable. */
const WIDTH: Record<ColumnType, number | null> = {
  SYMBOL: 4,
  DOUBLE: 8,
  LONG: 8,
  INT: 4,
  SHORT: 2,
  BYTE: 1,
  FLOAT: 4,
  BOOLEAN: 1,
  STRING: null,
  VARCHAR: null,
  TIMESTAMP: 8,
  DATE: 8,
  CHAR: 2,
  UUID: 16,
};

type Exclusive = <T>(fn: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;

export class DuckDbRealtimeTables implements RealtimeTablesPort {
  constructor(
    private readonly exclusive: Exclusive,
    private readonly namespaceOf: (t: TenantRef) => string,
    private readonly namespaceExists: (t: TenantRef) => Promise<boolean>,
  ) {}

  ready(t: TenantRef): Promise<boolean> {
    return this.namespaceExists(t);
  }

  async create(t: TenantRef, spec: TableSpec, ddl: string): Promise<{ created: boolean; table: RealtimeTable }> {
    if (RESERVED.test(spec.name)) {
      throw AppError.validation([
        {
          loc: ["body", "sql"],
          msg: `table name '${spec.name}' is reserved`,
          type: "ddl_invalid",
          input: spec.name,
          ctx: { reserved: ["_namespace", "_rtdb*", "_probe_*"] },
        },
      ]);
    }
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
}

async function usageOf(conn: DuckDBConnection, ns: string, spec: TableSpec): Promise<RealtimeTableUsage> {
  const fixed = spec.columns.reduce((sum, c) => sum + (WIDTH[c.type] ?? 0), 0);
  const variable = spec.columns
    .filter((c) => WIDTH[c.type] === null)
    .map((c) => `coalesce(sum(strlen("${c.name}")), 0)`);
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
    bytes: n * fixed + Number(rows[0]?.var_bytes ?? 0),
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
