/** Foundry datasets and model runs in the control plane (domain/foundry/dataset.ts, models/model.ts); one DDL for both dialects. */
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

const models = `
  CREATE TABLE foundry_models (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    name TEXT NOT NULL,
    dataset_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    target_column TEXT NOT NULL,
    feature_columns TEXT NOT NULL,
    problem_type TEXT,
    status TEXT NOT NULL,
    progress TEXT,
    error TEXT,
    result TEXT,
    job_id TEXT NOT NULL,
    artifact_sha256 TEXT,
    artifact_path TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX foundry_models_tenant ON foundry_models(tenant_id, created_at);
`;

// Tuning experiments (domain/foundry/models/tuning.ts), and on a model run the tuning it used and
// the hyperparameters that came with it (POST /v1/foundry/models/train with tuning_id).
const tunings = `
  CREATE TABLE foundry_tunings (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    name TEXT NOT NULL,
    dataset_id TEXT NOT NULL,
    table_name TEXT NOT NULL,
    target_column TEXT NOT NULL,
    feature_columns TEXT NOT NULL,
    problem_type TEXT,
    status TEXT NOT NULL,
    progress TEXT,
    error TEXT,
    result TEXT,
    job_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE INDEX foundry_tunings_tenant ON foundry_tunings(tenant_id, created_at);
  ALTER TABLE foundry_models ADD COLUMN tuning_id TEXT;
  ALTER TABLE foundry_models ADD COLUMN tuned_params TEXT;
`;

export const FOUNDRY_MIGRATIONS: Migration[] = [
  { id: "foundry:001_datasets", sqlite: datasets, postgres: datasets },
  { id: "foundry:002_models", sqlite: models, postgres: models },
  { id: "foundry:003_tunings", sqlite: tunings, postgres: tunings },
];
