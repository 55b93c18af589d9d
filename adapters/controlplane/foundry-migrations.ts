/** Foundry datasets in the control plane (domain/foundry/dataset.ts); one DDL for both dialects. */
import type { Migration } from "../../domain/ports.ts";

const datasets = `
  CREATE TABLE foundry_datasets (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    output_table TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    row_count BIGINT NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    last_built_at TEXT,
    sql_text TEXT,
    error TEXT,
    progress TEXT,
    build_id TEXT,
    UNIQUE (tenant_id, name),
    UNIQUE (tenant_id, output_table)
  );
  CREATE INDEX foundry_datasets_tenant ON foundry_datasets(tenant_id, created_at);
`;

export const FOUNDRY_MIGRATIONS: Migration[] = [{ id: "foundry:001_datasets", sqlite: datasets, postgres: datasets }];
