/**
 * A real-time table as the QuestDB CREATE TABLE subset describes it (spec 4.8), and the
 * port the HTTP layer uses to create and inspect a tenant's tables. Engines map the
 * QuestDB types onto their own; the spec keeps the QuestDB view so metadata endpoints
 * answer in QuestDB's shapes whatever the engine.
 */
import { AppError } from "../errors.ts";
import type { TenantRef } from "../namespaces.ts";

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

export interface RealtimeTablesPort {
  /** False when the tenant's namespace is not provisioned. */
  ready(t: TenantRef): Promise<boolean>;
  /** Creates the table; `created` false when IF NOT EXISTS met an existing table. Throws conflict otherwise. */
  create(t: TenantRef, spec: TableSpec, ddl: string): Promise<{ created: boolean; table: RealtimeTable }>;
  list(t: TenantRef): Promise<RealtimeTable[]>;
  /** Null when the tenant has no table of that name (case-insensitive, as QuestDB). */
  get(t: TenantRef, name: string): Promise<RealtimeTable | null>;
  storage(t: TenantRef): Promise<RealtimeStorage>;
}

/** For a time-series engine without real-time tables yet: every tenant reads as unprovisioned (503). */
export const NO_REALTIME_TABLES: RealtimeTablesPort = {
  ready: async () => false,
  create: async () => {
    throw new AppError("unavailable", "Real-time tables are not available on this time-series engine");
  },
  list: async () => [],
  get: async () => null,
  storage: async () => ({ allocatedBytes: 0, tables: [] }),
};
