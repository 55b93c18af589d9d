/**
 * The lakehouse as the service sees it: the lab's gateway (embedded: PyIceberg SQL catalog
 * + DuckDB; at scale: Iceberg REST catalog + Spark SQL). HTTP contract in docs/lakehouse-gateway.md.
 */
import type { NamespacePort } from "../tenants/namespaces.ts";

export type LakehouseHealth =
  | { status: "ok"; catalog: string; engine: string; warehouse: string }
  | { status: "unavailable"; error: string };

export interface LakehouseColumn {
  name: string;
  /** Iceberg primitive type: boolean, int, long, float, double, decimal(p,s), date, timestamp, timestamptz, string, binary. */
  type: string;
  nullable?: boolean;
}

export interface LakehouseRows {
  columns: LakehouseColumn[];
  rows: unknown[][];
}

export interface WriteRequest {
  mode: "overwrite" | "upsert" | "append";
  /** Required for upsert: rows replace existing rows with equal keys. */
  key_columns?: string[];
  columns: LakehouseColumn[];
  rows: unknown[][];
  /** Stored on the Iceberg snapshot summary (e.g. the sync watermark). */
  snapshot_properties?: Record<string, string>;
}

export interface WriteResult {
  snapshot_id: number | null;
  rows_written: number;
}

export interface LakehousePort extends NamespacePort {
  health(): Promise<LakehouseHealth>;
  listTables(namespace: string): Promise<string[]>;
  tableSchema(namespace: string, table: string): Promise<LakehouseColumn[]>;
  preview(namespace: string, table: string, limit: number): Promise<LakehouseRows>;
  sql(namespace: string, statement: string): Promise<LakehouseRows>;
  write(namespace: string, table: string, req: WriteRequest): Promise<WriteResult>;
  /** The current snapshot's summary properties, or null when the table does not exist. */
  snapshotProperties(namespace: string, table: string): Promise<Record<string, string> | null>;
}
