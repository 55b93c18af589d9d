/**
 * Lakehouse catalogs and sync targets (spec 2.4, 2.5, 4.2) as the control plane stores
 * them (the store port, LakehouseCatalogStore, is in ./ports.ts).
 * Storage secrets only ever appear here as ciphertext (domain/secret-box.ts).
 */

export const CATALOG_TYPES = ["rest", "hive", "glue"] as const;
export type CatalogType = (typeof CATALOG_TYPES)[number];
export const DEFAULT_CATALOG_NAME = "svc-lakehouse";

export const SYNC_MODES = ["incremental", "full_refresh"] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

/** The relational read-model schemas a sync target may read from (spec 1.9). */
export const SOURCE_SCHEMAS = ["ci", "dm", "pm", "md"] as const;
export type SourceSchema = (typeof SOURCE_SCHEMAS)[number];

/** Iceberg namespace/table names (docs/lakehouse-gateway.md). */
export const ICEBERG_NAME_RE = /^[a-z_][a-z0-9_]{0,127}$/;
/** Source tables and columns: plain lower-case identifiers, within Postgres' 63-byte limit. */
export const SQL_IDENT_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export const SYNC_STATUSES = ["queued", "running", "succeeded", "failed"] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export interface Catalog {
  id: string;
  tenant_id: string;
  tenant_slug: string;
  catalog_name: string;
  catalog_type: CatalogType;
  catalog_uri: string;
  warehouse: string;
  storage_prefix: string;
  s3_endpoint: string | null;
  s3_access_key_id: string | null;
  /** Ciphertext (`v1.<key>.…`) or null; never the secret itself. */
  s3_secret_key_enc: string | null;
  /** The key the ciphertext was made with (rotation finds stale rows by it). */
  key_id: string | null;
  metadata: Record<string, unknown>;
  is_active: boolean;
  provisioned_at: string;
  updated_at: string;
}

export interface CatalogUpsert {
  tenant_id: string;
  catalog_name: string;
  catalog_type: CatalogType;
  catalog_uri: string;
  warehouse: string;
  storage_prefix: string;
  s3_endpoint: string | null;
  s3_access_key_id: string | null;
  s3_secret_key_enc: string | null;
  key_id: string | null;
  metadata: Record<string, unknown>;
}

export interface SyncTarget {
  id: string;
  tenant_id: string;
  tenant_slug: string;
  catalog_name: string;
  source_schema: SourceSchema;
  source_table: string;
  iceberg_namespace: string;
  iceberg_table: string;
  sync_mode: SyncMode;
  primary_key_cols: string[];
  cursor_col: string | null;
  sync_connector_id: string | null;
  metadata: Record<string, unknown>;
  created_at: string;
  last_cursor: string | null;
  last_synced_at: string | null;
  /** Text: Iceberg snapshot ids are 64-bit and do not survive a JS number. */
  last_snapshot_id: string | null;
  last_status: SyncStatus | null;
  last_error: string | null;
  last_job_id: string | null;
}

export type NewSyncTarget = Pick<
  SyncTarget,
  | "tenant_id"
  | "catalog_name"
  | "source_schema"
  | "source_table"
  | "iceberg_namespace"
  | "iceberg_table"
  | "sync_mode"
  | "primary_key_cols"
  | "cursor_col"
  | "sync_connector_id"
  | "metadata"
>;

export type SyncStatePatch = Partial<
  Pick<SyncTarget, "last_cursor" | "last_synced_at" | "last_snapshot_id" | "last_status" | "last_error" | "last_job_id">
>;

/** Additional authenticated data binding a catalog secret to its row (tenant + name). */
export function catalogSecretContext(tenantId: string, catalogName: string): string {
  return `catalog:${tenantId}:${catalogName}`;
}
