/**
 * QuestDB's own metadata mapped to the realtime-table model: QuestDB keeps it all, in
 * tables() (partitioning, WAL, QuestDB's table id), table_columns() (types, symbol
 * capacity/cache/index, designated column) and table_storage() (disk size). A table's
 * per-tenant id is its rank among the tenant's tables in QuestDB id order (so 1, 2, 3... as on
 * the embedded engine); its DDL is rebuilt from the columns QuestDB reports, so it is the
 * table as it really is.
 */
import { AppError } from "../../domain/errors.ts";
import {
  COLUMN_TYPES,
  type ColumnSpec,
  type ColumnType,
  normaliseDdl,
  PARTITION_UNITS,
  type PartitionBy,
  RESERVED_TABLE_NAME,
  type RealtimeTable,
  type RealtimeTableUsage,
  rowWidth,
  type TableSpec,
} from "../../domain/rtdb/index.ts";
import { type QuestDbHttp, sqlIdent, sqlString } from "./questdb-http.ts";

/** SAMPLE BY stride per partition unit (calendar-aligned, UTC). */
export const STRIDE: Record<PartitionBy, string> = { DAY: "1d", HOUR: "1h", MONTH: "1M" };

/** One of a tenant's tables as tables() reports it. */
export interface QdbTable {
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

/** The tenant's tables (QuestDB names starting with `prefix`) in QuestDB id order, reserved names excluded. */
export async function tenantTables(http: QuestDbHttp, prefix: string): Promise<QdbTable[]> {
  const rows = await http.rows(
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

/** The table's spec as QuestDB reports it, its per-tenant id and its normalised DDL. */
export async function describeTable(http: QuestDbHttp, tbl: QdbTable): Promise<RealtimeTable> {
  const cols = await http.rows(`table_columns(${sqlString(tbl.full)})`);
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

/** Rows, estimated bytes and non-empty partitions of one table. */
export async function tableUsage(http: QuestDbHttp, tbl: QdbTable, spec: TableSpec): Promise<RealtimeTableUsage> {
  const width = rowWidth(spec);
  const variable = width.variable.map(
    (c) => `coalesce(sum(CASE WHEN ${sqlIdent(c)} IS NULL THEN 0 ELSE length_bytes(${sqlIdent(c)}::varchar) END), 0)`,
  );
  const rows = await http.rows(
    `SELECT count() AS n, ${variable.length ? variable.join(" + ") : "0"} AS var_bytes FROM ${sqlIdent(tbl.full)}`,
  );
  const n = Number(rows[0]?.n ?? 0);
  const { dataset } = await http.exec(
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

export function partitionUnit(tbl: QdbTable): PartitionBy {
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
