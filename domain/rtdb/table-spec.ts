/**
 * A real-time table as the QuestDB CREATE TABLE subset describes it (spec 4.8); the port
 * that creates and inspects a tenant's tables is in ports.ts. Engines map the
 * QuestDB types onto their own; the spec keeps the QuestDB view so metadata endpoints
 * answer in QuestDB's shapes whatever the engine.
 */
import { AppError } from "../errors.ts";

/** The supported column types (QuestDB names). */
export const COLUMN_TYPES = [
  "SYMBOL",
  "DOUBLE",
  "LONG",
  "INT",
  "SHORT",
  "BYTE",
  "FLOAT",
  "BOOLEAN",
  "STRING",
  "VARCHAR",
  "TIMESTAMP",
  "DATE",
  "CHAR",
  "UUID",
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const PARTITION_UNITS = ["DAY", "HOUR", "MONTH"] as const;
export type PartitionBy = (typeof PARTITION_UNITS)[number];

/** QuestDB's defaults (cairo.default.symbol.capacity, cairo.index.value.block.size). */
export const DEFAULT_SYMBOL_CAPACITY = 256;
export const DEFAULT_INDEX_CAPACITY = 256;

export interface SymbolOptions {
  /** Rounded up to a power of two, as QuestDB does. */
  capacity: number;
  cached: boolean;
  /** Null when the column is not indexed. */
  index: { capacity: number } | null;
}

export interface ColumnSpec {
  name: string;
  type: ColumnType;
  /** Present exactly when type is SYMBOL. */
  symbol?: SymbolOptions;
}

export interface TableSpec {
  name: string;
  ifNotExists: boolean;
  columns: ColumnSpec[];
  /** Name of the designated TIMESTAMP column. */
  designated: string;
  partitionBy: PartitionBy;
  /** Always true: the subset refuses tables without WAL. */
  wal: true;
}

/** Table names as stored: letters, digits and underscores, at most 127 characters. */
export const TABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,126}$/;

/** A created table's QuestDB-shaped metadata (tables() and table_columns()). */
export interface RealtimeTable {
  spec: TableSpec;
  /** Per-tenant table id, increasing from 1. */
  id: number;
  ddl: string;
}

/**
 * Names the adapters use themselves inside a tenant's namespace (the namespace marker, the
 * embedded engine's catalogue, readiness probes); a tenant can neither create nor list them.
 */
export const RESERVED_TABLE_NAME = /^(_namespace$|_rtdb|_probe_)/i;

/** Refuses a reserved table name in CREATE TABLE (a section-7 validation error on the SQL). */
export function refuseReservedTableName(name: string): void {
  if (!RESERVED_TABLE_NAME.test(name)) return;
  throw AppError.validation([
    {
      loc: ["body", "sql"],
      msg: `table name '${name}' is reserved`,
      type: "ddl_invalid",
      input: name,
      ctx: { reserved: ["_namespace", "_rtdb*", "_probe_*"] },
    },
  ]);
}

/** Bytes per value in QuestDB's column files (SYMBOL stores an int key); null = variable. */
export const COLUMN_WIDTH: Record<ColumnType, number | null> = {
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

/**
 * A table's row size as RealtimeTableUsage estimates it: the bytes of its fixed-width columns,
 * and the names of its variable-width ones (whose values' bytes the engine sums).
 */
export function rowWidth(spec: TableSpec): { fixedBytes: number; variable: string[] } {
  return {
    fixedBytes: spec.columns.reduce((sum, c) => sum + (COLUMN_WIDTH[c.type] ?? 0), 0),
    variable: spec.columns.filter((c) => COLUMN_WIDTH[c.type] === null).map((c) => c.name),
  };
}

export interface RealtimeTableUsage {
  name: string;
  rows: number;
  /** Estimated bytes: fixed width x rows, plus the bytes of string values. */
  bytes: number;
  /** Distinct partitions (designated timestamp truncated to partitionBy). */
  partitions: number;
}

export interface RealtimeStorage {
  /** Bytes the engine holds on disk for the whole embedded database (all tenants). */
  allocatedBytes: number;
  tables: RealtimeTableUsage[];
}

/** One partition of a table: its QuestDB name and its whole time range, ISO [from, to). */
export interface PartitionInfo {
  /** DAY 'YYYY-MM-DD', HOUR 'YYYY-MM-DDTHH', MONTH 'YYYY-MM' (as QuestDB prints them). */
  partition: string;
  from: string;
  to: string;
  rows: number;
}

/**
 * A value to ingest. Numbers for DOUBLE/FLOAT/LONG/INT/SHORT/BYTE (LONG also bigint), strings for
 * SYMBOL/STRING/VARCHAR/CHAR/UUID, booleans for BOOLEAN; TIMESTAMP and DATE take a Date, an ISO 8601
 * string (up to microseconds; no zone means UTC), epoch milliseconds (number) or epoch microseconds
 * (bigint). Null or absent leaves the column null (never the designated timestamp).
 */
export type RowValue = string | number | bigint | boolean | Date | null | undefined;
/** One row to ingest: column name (case-insensitive) -> value. */
export type Row = Readonly<Record<string, RowValue>>;
