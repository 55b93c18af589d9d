/**
 * Control-plane schema for lakehouse catalogs and sync targets, kept apart from
 * CONTROL_PLANE_MIGRATIONS (main.ts passes both to store.migrate) so the two lists grow
 * without touching each other. Ids are namespaced "lh:".
 */
import { join } from "node:path";
import { SOURCE_SCHEMAS } from "../../domain/lakehouse/catalog.ts";
import type { Migration } from "../../domain/ports.ts";

const tables = (bool: string, trueLit: string) => `
  CREATE TABLE catalogs (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    catalog_name TEXT NOT NULL,
    catalog_type TEXT NOT NULL,
    catalog_uri TEXT NOT NULL,
    warehouse TEXT NOT NULL,
    storage_prefix TEXT NOT NULL,
    s3_endpoint TEXT,
    s3_access_key_id TEXT,
    s3_secret_key_enc TEXT,
    key_id TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    is_active ${bool} NOT NULL DEFAULT ${trueLit},
    provisioned_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (tenant_id, catalog_name)
  );
  CREATE INDEX catalogs_provisioned ON catalogs(provisioned_at);
  CREATE TABLE sync_targets (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    catalog_name TEXT NOT NULL,
    source_schema TEXT NOT NULL,
    source_table TEXT NOT NULL,
    iceberg_namespace TEXT NOT NULL,
    iceberg_table TEXT NOT NULL,
    sync_mode TEXT NOT NULL,
    primary_key_cols TEXT NOT NULL DEFAULT '[]',
    cursor_col TEXT,
    sync_connector_id TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at TEXT NOT NULL,
    last_cursor TEXT,
    last_synced_at TEXT,
    last_snapshot_id TEXT,
    last_status TEXT,
    last_error TEXT,
    last_job_id TEXT,
    UNIQUE (tenant_id, iceberg_namespace, iceberg_table)
  );
  CREATE INDEX sync_targets_tenant ON sync_targets(tenant_id, created_at);
`;

export const LAKEHOUSE_MIGRATIONS: Migration[] = [
  {
    id: "lh:001_catalogs_sync_targets",
    sqlite: tables("INTEGER", "1"),
    postgres: tables("BOOLEAN", "TRUE"),
  },
  {
    // The relational read models sync targets read from (spec 1.9). On SQLite each is an
    // attached database file (adapters/sql/sqlite.ts `attach`), so `ci.table` works in both.
    id: "lh:002_source_schemas",
    sqlite: "SELECT 1;",
    postgres: SOURCE_SCHEMAS.map((s) => `CREATE SCHEMA IF NOT EXISTS ${s};`).join("\n"),
  },
];

/** SQLite: one database file per source schema, next to the control-plane file. */
export function sourceSchemaAttachments(dir: string): { name: string; path: string }[] {
  return SOURCE_SCHEMAS.map((s) => ({ name: s, path: join(dir, `${s}.sqlite`) }));
}
