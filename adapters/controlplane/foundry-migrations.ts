/** Foundry datasets and model runs in the control plane (domain/foundry/dataset.ts, models/model.ts); one DDL for both dialects. */
import type { Migration } from "../../domain/ports.ts";
import { SERVING_MIGRATION } from "./foundry-serving-store.ts";

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

// Foundry agents (domain/foundry/agents/): the agents, their runs (one per agent and cron
// fire time: the scheduler's claim) and their notifications (one per agent, entity and alert
// window: the deduplication).
const agents = `
  CREATE TABLE foundry_agents (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants(tenant_id),
    name TEXT NOT NULL,
    description TEXT,
    registry_id TEXT,
    agent_type TEXT NOT NULL,
    alert_threshold DOUBLE PRECISION,
    alert_channel TEXT,
    alert_webhook TEXT,
    schedule_cron TEXT,
    batch_dag_id TEXT,
    entity TEXT,
    status TEXT NOT NULL,
    call_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    next_fire_at TEXT,
    last_fire_at TEXT
  );
  CREATE INDEX foundry_agents_tenant ON foundry_agents(tenant_id, created_at);
  CREATE INDEX foundry_agents_due ON foundry_agents(status, next_fire_at);
  CREATE TABLE foundry_agent_runs (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES foundry_agents(id),
    tenant_id TEXT NOT NULL,
    run_trigger TEXT NOT NULL,
    fire_at TEXT,
    status TEXT NOT NULL,
    progress TEXT,
    result TEXT,
    error TEXT,
    created_at TEXT NOT NULL,
    finished_at TEXT,
    UNIQUE (agent_id, fire_at)
  );
  CREATE INDEX foundry_agent_runs_agent ON foundry_agent_runs(agent_id, created_at);
  CREATE TABLE foundry_agent_alerts (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES foundry_agents(id),
    tenant_id TEXT NOT NULL,
    run_id TEXT,
    entity_key TEXT NOT NULL,
    window_start TEXT NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    channel TEXT NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    created_at TEXT NOT NULL,
    delivered_at TEXT,
    UNIQUE (agent_id, entity_key, window_start)
  );
  CREATE INDEX foundry_agent_alerts_agent ON foundry_agent_alerts(agent_id, created_at);
`;

export const FOUNDRY_MIGRATIONS: Migration[] = [
  { id: "foundry:001_datasets", sqlite: datasets, postgres: datasets },
  { id: "foundry:002_models", sqlite: models, postgres: models },
  { id: "foundry:003_tunings", sqlite: tunings, postgres: tunings },
  { id: "foundry:agents_001", sqlite: agents, postgres: agents },
  // The model registry and the prediction log (domain/foundry/serving/; DDL beside its store).
  SERVING_MIGRATION,
];
