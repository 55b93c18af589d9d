/**
 * Reading a relational read-model table (ci/dm/pm/md) for a sync: its columns with their
 * Iceberg types, and its rows as JSON-ready values. Schema names come from a fixed list
 * and table names from a checked pattern; column names come from the database's own
 * catalog and are always quoted, so nothing a caller typed reaches SQL unquoted.
 */
import { AppError } from "../../../domain/errors.ts";
import { SOURCE_SCHEMAS, type SourceSchema, SQL_IDENT_RE } from "../../../domain/lakehouse/catalog.ts";
import type { SourceColumn } from "../../../domain/lakehouse/ports.ts";
import type { SqlClient, SqlParam } from "../../../domain/ports.ts";

/** Iceberg types a watermark can use: totally ordered, and comparable in SQL with a cast. */
const CURSOR_CASTS: Record<string, string> = {
  int: "bigint",
  long: "bigint",
  float: "double precision",
  double: "double precision",
  decimal: "numeric",
  date: "date",
  timestamp: "timestamp",
  timestamptz: "timestamptz",
  string: "text",
};

const baseType = (t: string) => t.replace(/\(.*$/, "");

export function isCursorType(icebergType: string): boolean {
  return baseType(icebergType) in CURSOR_CASTS;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `<schema>."<table>"` after checking both against the allowed forms. */
export function qualifiedTable(schema: SourceSchema, table: string): string {
  if (!(SOURCE_SCHEMAS as readonly string[]).includes(schema)) {
    throw new AppError("bad_request", `Source schema must be one of ${SOURCE_SCHEMAS.join(", ")}`);
  }
  if (!SQL_IDENT_RE.test(table)) throw new AppError("bad_request", `Source table must match ${SQL_IDENT_RE}`);
  return `${schema}.${quoteIdent(table)}`;
}

function decimalOr(p: number | null, s: number | null): string {
  // Iceberg decimals hold at most 38 digits; an unconstrained NUMERIC becomes a double.
  return p !== null && p >= 1 && p <= 38 ? `decimal(${p},${s ?? 0})` : "double";
}

/** SQLite declared type -> Iceberg type, following SQLite's own affinity rules. */
export function icebergTypeForSqlite(declared: string): string {
  const t = declared.toUpperCase();
  if (t.includes("BOOL")) return "boolean";
  if (t.includes("INT")) return "long"; // SQLite integers are 64-bit
  if (t.includes("CHAR") || t.includes("CLOB") || t.includes("TEXT")) return "string";
  if (t.includes("BLOB")) return "binary";
  if (t.includes("REAL") || t.includes("FLOA") || t.includes("DOUB")) return "double";
  if (t.includes("TIMESTAMPTZ")) return "timestamptz";
  if (t.includes("TIMESTAMP") || t.includes("DATETIME")) return "timestamp";
  if (t.includes("DATE")) return "date";
  const dec = t.match(/^(?:DECIMAL|NUMERIC)\s*\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)/);
  if (dec) return decimalOr(Number(dec[1]), dec[2] === undefined ? 0 : Number(dec[2]));
  if (t.includes("DECIMAL") || t.includes("NUMERIC")) return "double";
  return "string";
}

/** information_schema.columns.data_type -> Iceberg type. */
export function icebergTypeForPostgres(dataType: string, precision: number | null, scale: number | null): string {
  switch (dataType) {
    case "smallint":
    case "integer":
      return "int";
    case "bigint":
      return "long";
    case "real":
      return "float";
    case "double precision":
      return "double";
    case "numeric":
      return decimalOr(precision, scale);
    case "boolean":
      return "boolean";
    case "date":
      return "date";
    case "timestamp without time zone":
      return "timestamp";
    case "timestamp with time zone":
      return "timestamptz";
    case "bytea":
      return "binary";
    default:
      return "string"; // text, varchar, uuid, json, time, interval, arrays: carried as text
  }
}

/** The table's columns in order, or null when the table does not exist. */
export async function describeSourceTable(
  sql: SqlClient,
  schema: SourceSchema,
  table: string,
): Promise<SourceColumn[] | null> {
  qualifiedTable(schema, table);
  if (sql.dialect === "sqlite") {
    const rows = await sql.all<{ name: string; type: string; notnull: number; pk: number }>(
      'SELECT name, type, "notnull", pk FROM pragma_table_info(?, ?) ORDER BY cid',
      [table, schema],
    );
    if (rows.length === 0) return null;
    return rows.map((r) => ({ name: r.name, type: icebergTypeForSqlite(r.type), nullable: !r.notnull && !r.pk }));
  }
  const rows = await sql.all<{
    name: string;
    data_type: string;
    numeric_precision: number | null;
    numeric_scale: number | null;
    is_nullable: string;
  }>(
    `SELECT column_name AS name, data_type, numeric_precision, numeric_scale, is_nullable
       FROM information_schema.columns WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position`,
    [schema, table],
  );
  if (rows.length === 0) return null;
  return rows.map((r) => ({
    name: r.name,
    type: icebergTypeForPostgres(
      r.data_type,
      r.numeric_precision === null ? null : Number(r.numeric_precision),
      r.numeric_scale === null ? null : Number(r.numeric_scale),
    ),
    nullable: r.is_nullable === "YES",
  }));
}

export interface ReadSpec {
  schema: SourceSchema;
  table: string;
  columns: SourceColumn[];
  limit: number;
  /** Incremental reads: rows with cursor > after (and <= upTo), ordered by the cursor. */
  cursor?: { column: SourceColumn; after: string | null; upTo?: string };
  /**
   * The tenant the sync belongs to. A table with a `tenant_id` column (the dm/pm/md read
   * models) is read for that tenant only; reading one without it is refused.
   */
  tenantId?: string;
}

/** Rows as arrays in `columns` order, plus each row's cursor as the database renders it. */
export async function readSourceRows(
  sql: SqlClient,
  spec: ReadSpec,
): Promise<{ rows: unknown[][]; cursors: string[] }> {
  const from = qualifiedTable(spec.schema, spec.table);
  // Positional aliases: an alias equal to a column name would win over the column in SQLite's
  // ORDER BY. bun:sqlite reads integers past 2^53 as lossy numbers; as text they stay exact.
  const cols = spec.columns
    .map((c, i) => {
      const col = quoteIdent(c.name);
      return `${sql.dialect === "sqlite" && c.type === "long" ? `CAST(${col} AS TEXT)` : col} AS "__cairn_${i}"`;
    })
    .join(", ");
  const params: SqlParam[] = [];
  const where: string[] = [];
  if (spec.columns.some((c) => c.name === "tenant_id")) {
    if (!spec.tenantId)
      throw new AppError("internal", `${spec.schema}.${spec.table} is per tenant: a read needs the tenant`);
    where.push(`"tenant_id" = ?`);
    params.push(spec.tenantId);
  }
  let select = `SELECT ${cols} FROM ${from}`;
  let order = "";
  if (spec.cursor) {
    const c = quoteIdent(spec.cursor.column.name);
    // The cursor is kept as the database's own text rendering and cast back for comparison
    // (Postgres needs the cast: text parameters do not compare with numbers or timestamps).
    const cast = CURSOR_CASTS[baseType(spec.cursor.column.type)];
    if (!cast) throw new AppError("bad_request", `Column ${spec.cursor.column.name} cannot be a cursor`);
    const param = sql.dialect === "postgres" ? `CAST(? AS ${cast})` : "?";
    where.push(`${c} IS NOT NULL`);
    if (spec.cursor.after !== null) {
      where.push(`${c} > ${param}`);
      params.push(spec.cursor.after);
    }
    if (spec.cursor.upTo !== undefined) {
      where.push(`${c} <= ${param}`);
      params.push(spec.cursor.upTo);
    }
    select = `SELECT ${cols}, CAST(${c} AS TEXT) AS "__cairn_cursor" FROM ${from}`;
    order = ` ORDER BY ${c}`;
  }
  if (where.length) select += ` WHERE ${where.join(" AND ")}`;
  select += order;
  params.push(spec.limit);
  const raw = await sql.all<Record<string, unknown>>(`${select} LIMIT ?`, params);
  return {
    rows: raw.map((r) => spec.columns.map((c, i) => toWire(r[`__cairn_${i}`], c.type))),
    cursors: spec.cursor ? raw.map((r) => String(r.__cairn_cursor)) : [],
  };
}

/** One source value as JSON for the gateway: ISO dates, exact decimals as text, base64 bytes. */
export function toWire(v: unknown, type: string): unknown {
  if (v === null || v === undefined) return null;
  const t = baseType(type);
  if (v instanceof Date) {
    if (t === "date") return v.toISOString().slice(0, 10);
    // The Postgres driver reads a zone-less timestamp as UTC; drop the Z to keep it zone-less.
    if (t === "timestamp") return v.toISOString().replace(/Z$/, "");
    return v.toISOString();
  }
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  switch (t) {
    case "boolean":
      return typeof v === "string" ? v === "t" || v === "true" || v === "1" : Boolean(v);
    case "int":
    case "long": {
      const n = typeof v === "bigint" ? v : BigInt(String(v).replace(/\.0+$/, ""));
      return n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n.toString();
    }
    case "float":
    case "double":
      return Number(v);
    case "decimal": {
      // SQLite keeps DECIMAL columns as binary floats; the declared scale is what they mean
      // (12.5 -> "12.50", 0.1 + 0.2 -> "0.30"). Postgres hands exact text, passed unchanged.
      const scale = Number(type.match(/,\s*(\d+)\)$/)?.[1] ?? 0);
      return typeof v === "number" ? v.toFixed(scale) : String(v);
    }
    case "date":
      return String(v).slice(0, 10);
    case "timestamp":
    case "timestamptz":
      return String(v).replace(" ", "T");
    default:
      return typeof v === "object" ? JSON.stringify(v) : String(v);
  }
}

/** The larger of two cursor texts of one column: numerically for numbers, by instant for times. */
export function maxCursor(a: string | null, b: string | null, type: string): string | null {
  if (a === null) return b;
  if (b === null) return a;
  const t = baseType(type);
  let cmp: number;
  if (/^(int|long)$/.test(t) && /^-?\d+$/.test(a) && /^-?\d+$/.test(b)) {
    const x = BigInt(a);
    const y = BigInt(b);
    cmp = x === y ? 0 : x > y ? 1 : -1;
  } else if (/^(int|long|float|double|decimal)$/.test(t)) {
    cmp = Number(a) - Number(b);
  } else if (/^(date|timestamp|timestamptz)$/.test(t) && !Number.isNaN(instant(a)) && !Number.isNaN(instant(b))) {
    // Equal to the millisecond: the longer (microsecond) text decides, same format either side.
    cmp = instant(a) - instant(b) || (a < b ? -1 : a > b ? 1 : 0);
  } else {
    cmp = a < b ? -1 : a > b ? 1 : 0;
  }
  return cmp >= 0 ? a : b;
}

/** Milliseconds of a date/time text as Postgres or SQLite render it ("+00" offsets included). */
function instant(text: string): number {
  return Date.parse(text.replace(" ", "T").replace(/([+-]\d\d)$/, "$1:00"));
}
