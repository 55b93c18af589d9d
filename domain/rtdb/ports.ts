/**
 * Ports of real-time tables (spec 2.9, 4.8, 8.2): what the rtdb service and the tiering
 * pipeline need from the time-series engine (RealtimeTablesPort), from the control plane
 * (TieringStateStore), from Parquet (ParquetInspector) and from the tiered read path
 * (RealtimeRangeReader, RealtimeTieringView). Adapters implement them; composition wires them.
 */
import { AppError } from "../errors.ts";
import type { TenantRef } from "../tenants/namespaces.ts";
import type { PartitionInfo, RealtimeStorage, RealtimeTable, Row, TableSpec } from "./table-spec.ts";
import type { RangeRows, TieredFile, TieredPart, TieringState, TieringSummary, TimeRange } from "./tiering.ts";

export interface RealtimeTablesPort {
  /**
   * Appends rows to the tenant's table, batch by batch; each batch commits on its own. Resolves once
   * every row is committed and visible to queries. not_found for an unknown table; bad_request for an
   * unknown column, a value of the wrong type or a missing designated timestamp (with the row
   * number; batches before it stay committed).
   */
  ingest(t: TenantRef, table: string, rows: Row[] | AsyncIterable<Row[]>): Promise<{ rows: number }>;
  /** False when the tenant's namespace is not provisioned. */
  ready(t: TenantRef): Promise<boolean>;
  /** Creates the table; `created` false when IF NOT EXISTS met an existing table. Throws conflict otherwise. */
  create(t: TenantRef, spec: TableSpec, ddl: string): Promise<{ created: boolean; table: RealtimeTable }>;
  list(t: TenantRef): Promise<RealtimeTable[]>;
  /** Null when the tenant has no table of that name (case-insensitive, as QuestDB). */
  get(t: TenantRef, name: string): Promise<RealtimeTable | null>;
  storage(t: TenantRef): Promise<RealtimeStorage>;
  /** The table's non-empty partitions in time order; not_found when the table does not exist. */
  partitions(t: TenantRef, table: string): Promise<PartitionInfo[]>;
  /** Writes the partition's rows to a Parquet file at `file` (the caller picks a temporary path); returns the row count written. */
  exportPartition(t: TenantRef, table: string, partition: string, file: string): Promise<{ rows: number }>;
  dropPartition(t: TenantRef, table: string, partition: string): Promise<void>;
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
  ingest: async () => {
    throw new AppError("unavailable", "Real-time tables are not available on this time-series engine");
  },
  partitions: async () => [],
  exportPartition: async () => {
    throw new AppError("unavailable", "Real-time tables are not available on this time-series engine");
  },
  dropPartition: async () => {
    throw new AppError("unavailable", "Real-time tables are not available on this time-series engine");
  },
};

/** Tiering state in the control plane (adapters/controlplane/tiering-store.ts). */
export interface TieringStateStore {
  /** Every part of the tenant's table, by partition then part. */
  parts(tenantId: string, table: string): Promise<TieredPart[]>;
  /** Every part of every table of the tenant. */
  tenantParts(tenantId: string): Promise<TieredPart[]>;
  /**
   * Claims the part for `owner` until `until` (ISO): creates it as pending when absent.
   * Null when another owner holds an unexpired claim.
   */
  claim(
    key: { tenantId: string; table: string; partition: string; part: number },
    init: { from: string; to: string; rows: number; objectKey: string },
    owner: string,
    until: string,
  ): Promise<TieredPart | null>;
  /** Moves a claimed part to a new state; false when the claim was lost (nothing written). */
  transition(
    key: { tenantId: string; table: string; partition: string; part: number },
    owner: string,
    patch: { state: TieringState; rows?: number; bytes?: number; lastError?: string | null },
  ): Promise<boolean>;
  /** Releases the claim, recording an error (or clearing it). */
  release(
    key: { tenantId: string; table: string; partition: string; part: number },
    owner: string,
    lastError: string | null,
  ): Promise<void>;
}

/** Reads a Parquet file back for verification. */
export interface ParquetInspector {
  /** Rows in the file, and the least and greatest value of `column` (ISO), null when empty. */
  inspect(file: string, column: string): Promise<{ rows: number; min: string | null; max: string | null }>;
}

/** An engine that can answer a range over hot rows UNION ALL tiered files (the embedded DuckDB). */
export interface RealtimeRangeReader {
  /** Rows with designated timestamp in [from, to), in timestamp order; at most `limit` (bad_request beyond). */
  readRange(t: TenantRef, table: string, range: TimeRange, files: TieredFile[], limit: number): Promise<RangeRows>;
}

/** Tiered data as the HTTP layer, Foundry and tools see it (pipelines/rtdb/tiering/reader.ts). */
export interface RealtimeTieringView {
  summary(t: TenantRef): Promise<TieringSummary>;
  /** Hot rows UNION ALL tiered files for [from, to); unavailable when the engine cannot read Parquet. */
  read(t: TenantRef, table: string, range: TimeRange, limit?: number): Promise<RangeRows>;
}
